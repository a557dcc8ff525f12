//! Which `Origin` and `Host` headers brain's loopback HTTP servers (`brain mcp --http`, `brain
//! browse`) accept: loopback ones only. A web page the user visits can make the browser send a
//! request to `127.0.0.1`, and DNS rebinding can make a foreign name resolve to it; both show in
//! these headers (the MCP spec: servers MUST validate `Origin` and answer 403 to an invalid one).
//! Clients that are not browsers send no `Origin`, and are accepted.

use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr, TcpListener};

/// A socket listening on `127.0.0.1:port` (0: a free port the system picks), and its address.
pub fn bind(port: u16) -> std::io::Result<(TcpListener, SocketAddr)> {
    let socket = TcpListener::bind((Ipv4Addr::LOCALHOST, port))?;
    let addr = socket.local_addr()?;
    Ok((socket, addr))
}

/// Whether `host` (a URL's or `Host` header's host, without port) names this machine: `localhost`
/// (and `*.localhost`, RFC 6761 §6.3), `127.0.0.0/8` or `::1`.
fn is_loopback_name(host: &str) -> bool {
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    if host == "localhost" || host.ends_with(".localhost") {
        return true;
    }
    if let Some(v6) = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
        return v6.parse::<Ipv6Addr>().is_ok_and(|a| a.is_loopback());
    }
    host.parse::<Ipv4Addr>().is_ok_and(|a| a.is_loopback())
}

/// `host[:port]` → the host; `[v6]:port` keeps its brackets. `None` when the port is not a number.
fn strip_port(authority: &str) -> Option<&str> {
    if authority.starts_with('[') {
        let end = authority.find(']')?;
        let port_ok = match &authority[end + 1..] {
            "" => true,
            rest => rest
                .strip_prefix(':')
                .is_some_and(|p| p.parse::<u16>().is_ok()),
        };
        return port_ok.then(|| &authority[..=end]);
    }
    match authority.rsplit_once(':') {
        Some((host, port)) => port.parse::<u16>().ok().map(|_| host),
        None => Some(authority),
    }
}

/// Whether an `Origin` header value is a loopback origin: `http` or `https`, a loopback host, any
/// port, nothing after the authority. `null` (sandboxed frames, `file:` pages) is not.
pub fn is_loopback_origin(origin: &str) -> bool {
    let Some((scheme, authority)) = origin.trim().split_once("://") else {
        return false;
    };
    if !scheme.eq_ignore_ascii_case("http") && !scheme.eq_ignore_ascii_case("https") {
        return false;
    }
    if authority.is_empty() || authority.contains(['/', '@', '?', '#']) {
        return false;
    }
    strip_port(authority).is_some_and(is_loopback_name)
}

/// Whether a `Host` header value names this machine (`127.0.0.1:8181`, `localhost`, `[::1]:8181`).
pub fn is_loopback_host(host: &str) -> bool {
    let host = host.trim();
    !host.contains(['/', '@', '?', '#']) && strip_port(host).is_some_and(is_loopback_name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback_origins_pass() {
        for ok in [
            "http://localhost",
            "http://localhost:3000",
            "https://127.0.0.1:8181",
            "http://127.8.9.10",
            "http://[::1]:8181",
            "http://LOCALHOST.:80",
            "http://app.localhost:5173",
        ] {
            assert!(is_loopback_origin(ok), "{ok}");
        }
        for bad in [
            "null",
            "",
            "http://evil.example",
            "http://evil.example:8181",
            "http://127.0.0.1.evil.example",
            "http://localhost.evil.example",
            "http://localhost@evil.example",
            "http://192.168.1.2:8181",
            "http://[::2]:8181",
            "file://",
            "chrome-extension://abcdef",
            "ftp://localhost",
            "http://localhost:notaport",
            "http://localhost/path",
        ] {
            assert!(!is_loopback_origin(bad), "{bad}");
        }
    }

    #[test]
    fn only_loopback_hosts_pass() {
        for ok in [
            "127.0.0.1:8181",
            "localhost",
            "localhost:8181",
            "[::1]:8181",
            "[::1]",
        ] {
            assert!(is_loopback_host(ok), "{ok}");
        }
        for bad in [
            "evil.example:8181",
            "10.0.0.1:8181",
            "rebind.example",
            "[::1]x",
            "[::1]é",
            "localhost:x",
        ] {
            assert!(!is_loopback_host(bad), "{bad}");
        }
    }
}
