//! Link as a position-dependent executable on Linux (`-no-pie`, as Go links by default): a PIE of
//! this size applies ~43,000 relocations at every start, ~0.7 ms of a ~7 ms fresh query (perf,
//! 2026-11-23; docs/query.md). Libraries, heap and stack stay randomized.
fn main() {
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}
