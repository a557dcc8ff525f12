//! The few things we need from a URL: its scheme and host, whether it points at this machine or a
//! private network, and a copy without tracking parameters.
//!
//! Chromium stores URLs canonicalized (GURL: lower-case scheme and host, percent-encoded path and
//! query, IDNA hosts in punycode), so a small splitter is exact enough here and costs far less per
//! visit than a full WHATWG parser on a million rows.

use std::borrow::Cow;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Tracking parameters removed from every URL, besides any name starting with `utm_`.
/// Source: the lists of ClearURLs (rules `globalRules`) and Firefox's query-stripping list, 2026-11,
/// trimmed to parameters that never change what a page shows.
pub const TRACKING_PARAMS: &[&str] = &[
    "fbclid",
    "gclid",
    "gclsrc",
    "dclid",
    "gbraid",
    "wbraid",
    "msclkid",
    "yclid",
    "twclid",
    "ttclid",
    "li_fat_id",
    "igshid",
    "mc_cid",
    "mc_eid",
    "_ga",
    "_gl",
    "_hsenc",
    "_hsmi",
    "__hssc",
    "__hstc",
    "__hsfp",
    "hsctatracking",
    "mkt_tok",
    "oly_anon_id",
    "oly_enc_id",
    "rb_clickid",
    "s_cid",
    "vero_id",
    "vero_conv",
    "wickedid",
    "ref_src",
    "ref_url",
    "spm",
    "scm",
    "si",
    "epik",
    "srsltid",
];

/// A URL cut into the parts the policy looks at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Parts<'a> {
    /// Lower-case scheme without `:` (`https`, `chrome`, `file`, …).
    pub scheme: &'a str,
    /// Host without user info, port or IPv6 brackets; empty when the URL has no authority.
    pub host: &'a str,
}

/// Split `url` into scheme and host. `None` when there is no scheme at all.
pub fn parts(url: &str) -> Option<Parts<'_>> {
    let colon = url.find(':')?;
    let scheme = &url[..colon];
    if scheme.is_empty()
        || !scheme
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"+-.".contains(&b))
    {
        return None;
    }
    let rest = &url[colon + 1..];
    let Some(after) = rest.strip_prefix("//") else {
        return Some(Parts { scheme, host: "" });
    };
    let end = after.find(['/', '?', '#']).unwrap_or(after.len());
    let authority = &after[..end];
    let hostport = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let host = if let Some(v6) = hostport.strip_prefix('[') {
        v6.split_once(']').map_or(v6, |(h, _)| h)
    } else {
        hostport.split_once(':').map_or(hostport, |(h, _)| h)
    };
    Some(Parts {
        scheme,
        host: host.trim_end_matches('.'),
    })
}

/// True for a web page: `http` or `https` with a host.
pub fn is_web(p: &Parts<'_>) -> bool {
    (p.scheme.eq_ignore_ascii_case("https") || p.scheme.eq_ignore_ascii_case("http"))
        && !p.host.is_empty()
}

/// True when `host` is this machine or a private network: `localhost` (and `*.localhost`), `*.local`,
/// `*.internal`, loopback, RFC 1918, link-local, CGNAT, unique-local IPv6, the unspecified address.
pub fn is_local_host(host: &str) -> bool {
    let h = host.to_ascii_lowercase();
    if h == "localhost"
        || h.ends_with(".localhost")
        || h.ends_with(".local")
        || h.ends_with(".internal")
    {
        return true;
    }
    match h.parse::<IpAddr>() {
        Ok(IpAddr::V4(v4)) => is_private_v4(v4),
        Ok(IpAddr::V6(v6)) => is_private_v6(v6),
        Err(_) => false,
    }
}

fn is_private_v4(ip: Ipv4Addr) -> bool {
    let [a, b, ..] = ip.octets();
    ip.is_loopback()
        || ip.is_private()
        || ip.is_link_local()
        || ip.is_unspecified()
        || (a == 100 && (64..128).contains(&b))
}

fn is_private_v6(ip: Ipv6Addr) -> bool {
    let first = ip.segments()[0];
    if let Some(v4) = ip.to_ipv4_mapped() {
        return is_private_v4(v4);
    }
    ip.is_loopback()
        || ip.is_unspecified()
        || (first & 0xfe00) == 0xfc00
        || (first & 0xffc0) == 0xfe80
}

/// Suffix match on whole labels: `github.com` matches `github.com` and `gist.github.com`, not
/// `notgithub.com`. Both sides are compared case-insensitively; a leading `.` or `*.` in the pattern is
/// ignored.
pub fn domain_matches(host: &str, pattern: &str) -> bool {
    let pattern = pattern.trim_start_matches("*.").trim_start_matches('.');
    if pattern.is_empty() || host.len() < pattern.len() {
        return false;
    }
    let cut = host.len() - pattern.len();
    // Byte-wise: a hand-made database may hold a non-ASCII host, and `cut` need not fall on a char
    // boundary.
    host.as_bytes()[cut..].eq_ignore_ascii_case(pattern.as_bytes())
        && (cut == 0 || host.as_bytes()[cut - 1] == b'.')
}

/// The host as shown in documents and counted in `top_domains`: lower case, without a leading `www.`.
pub fn display_domain(host: &str) -> String {
    let h = host.to_ascii_lowercase();
    match h.strip_prefix("www.") {
        Some(rest) if !rest.is_empty() => rest.to_string(),
        _ => h,
    }
}

/// `url` without tracking parameters ([`TRACKING_PARAMS`], `utm_*`, and `extra`), and how many were
/// removed. The fragment is kept; a query left empty loses its `?`.
pub fn strip_tracking<'a>(url: &'a str, extra: &[String]) -> (Cow<'a, str>, usize) {
    let Some(q) = url.find('?') else {
        return (Cow::Borrowed(url), 0);
    };
    let (base, rest) = url.split_at(q);
    let (query, fragment) = match rest[1..].find('#') {
        Some(h) => (&rest[1..1 + h], &rest[1 + h..]),
        None => (&rest[1..], ""),
    };
    let is_tracking = |pair: &str| {
        let key = pair.split_once('=').map_or(pair, |(k, _)| k);
        let lower = key.to_ascii_lowercase();
        lower.starts_with("utm_")
            || TRACKING_PARAMS.contains(&lower.as_str())
            || extra.iter().any(|e| e.eq_ignore_ascii_case(key))
    };
    let removed = query
        .split('&')
        .filter(|p| !p.is_empty() && is_tracking(p))
        .count();
    if removed == 0 {
        return (Cow::Borrowed(url), 0);
    }
    let kept: Vec<&str> = query
        .split('&')
        .filter(|p| !p.is_empty() && !is_tracking(p))
        .collect();
    let mut out = String::with_capacity(url.len());
    out.push_str(base);
    if !kept.is_empty() {
        out.push('?');
        out.push_str(&kept.join("&"));
    }
    out.push_str(fragment);
    (Cow::Owned(out), removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_come_out_without_port_user_or_brackets() {
        let p = parts("https://user:pw@Docs.rs:8443/a?b#c").expect("parts");
        assert_eq!((p.scheme, p.host), ("https", "Docs.rs"));
        assert_eq!(parts("http://[::1]:8080/").map(|p| p.host), Some("::1"));
        assert_eq!(
            parts("about:blank").map(|p| (p.scheme, p.host)),
            Some(("about", ""))
        );
        assert_eq!(parts("no scheme here"), None);
    }

    #[test]
    fn local_and_private_addresses_are_recognised() {
        for h in [
            "localhost",
            "app.localhost",
            "127.0.0.1",
            "10.1.2.3",
            "192.168.0.9",
            "172.20.0.1",
            "::1",
            "fd00::1",
            "printer.local",
        ] {
            assert!(is_local_host(h), "{h}");
        }
        for h in ["github.com", "8.8.8.8", "172.32.0.1", "2606:4700::1111"] {
            assert!(!is_local_host(h), "{h}");
        }
    }

    #[test]
    fn domains_match_on_label_boundaries() {
        assert!(domain_matches("gist.github.com", "github.com"));
        assert!(domain_matches("github.com", "GitHub.com"));
        assert!(domain_matches("a.github.com", "*.github.com"));
        assert!(!domain_matches("notgithub.com", "github.com"));
        assert!(!domain_matches("com", "github.com"));
    }

    #[test]
    fn tracking_parameters_are_stripped_and_counted() {
        let (u, n) = strip_tracking(
            "https://x.io/p?utm_source=a&id=7&fbclid=z&UTM_Medium=m#top",
            &[],
        );
        assert_eq!((u.as_ref(), n), ("https://x.io/p?id=7#top", 3));
        let (u, n) = strip_tracking("https://x.io/p?gclid=1", &[]);
        assert_eq!((u.as_ref(), n), ("https://x.io/p", 1));
        let (u, n) = strip_tracking("https://x.io/p?ref=hn&q=1", &["ref".to_string()]);
        assert_eq!((u.as_ref(), n), ("https://x.io/p?q=1", 1));
        let (u, n) = strip_tracking("https://x.io/p?q=rust", &[]);
        assert!(matches!(u, Cow::Borrowed(_)));
        assert_eq!(n, 0);
    }

    proptest::proptest! {
        /// Any text from a URL row (a damaged or hand-made database can hold anything) is handled
        /// without a panic, and stripping is idempotent.
        #[test]
        fn arbitrary_urls_never_panic(url in "\\PC{0,60}", pat in "\\PC{0,12}") {
            if let Some(p) = parts(&url) {
                let _ = is_local_host(p.host);
                let _ = domain_matches(p.host, &pat);
                let _ = display_domain(p.host);
            }
            let _ = domain_matches(&url, &pat);
            let (once, _) = strip_tracking(&url, &[]);
            let (twice, n) = strip_tracking(&once, &[]);
            proptest::prop_assert_eq!(&once, &twice);
            proptest::prop_assert_eq!(n, 0);
        }

        #[test]
        fn urls_shaped_like_urls_never_panic(
            host in "[a-zé日.]{0,12}", path in "[a-z/?&=#_%é]{0,30}", pat in "[a-zé日.*]{0,8}",
        ) {
            let url = format!("https://{host}/{path}");
            let p = parts(&url).expect("scheme");
            let _ = domain_matches(p.host, &pat);
            let _ = strip_tracking(&url, &["x".into()]);
        }
    }
}
