//! This CPU's measured int8 peak: multiply-adds per second of AVX-512 VNNI `vpdpbusd` (64 int8
//! multiply-adds each) in a loop of independent accumulators, on every core at once — what
//! `bench/embed.sh` divides the encoder's rate by, instead of assuming one instruction per cycle
//! at the clock `/proc/cpuinfo` reports (some CPUs issue two, and the clock moves).
//!
//!   cargo run --release -p brain-vec --example int8_peak [SECONDS]
//!
//! Prints one line: `int8 peak G multiply-adds/s: TOTAL (PER_CORE per core x CORES cores)`, or
//! `int8 peak: not measured (...)` on a CPU without AVX-512 VNNI.

fn main() {
    let secs: f64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0.5);
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512vnni")
            && std::arch::is_x86_feature_detected!("avx512bw")
        {
            let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
            let rates: Vec<f64> = std::thread::scope(|s| {
                let all: Vec<_> = (0..cores).map(|_| s.spawn(|| run(secs))).collect();
                all.into_iter().map(|h| h.join().unwrap_or(0.0)).collect()
            });
            let total: f64 = rates.iter().sum();
            println!(
                "int8 peak G multiply-adds/s: {:.0} ({:.0} per core x {cores} cores)",
                total / 1e9,
                total / cores as f64 / 1e9
            );
            return;
        }
    }
    let _ = secs;
    println!("int8 peak: not measured (this CPU has no AVX-512 VNNI)");
}

/// Multiply-adds per second of one thread, best of five rounds of `secs / 5`.
#[cfg(target_arch = "x86_64")]
fn run(secs: f64) -> f64 {
    let mut best = 0f64;
    for _ in 0..5 {
        let start = std::time::Instant::now();
        let mut macs = 0u64;
        while start.elapsed().as_secs_f64() < secs / 5.0 {
            #[allow(unsafe_code)]
            // SAFETY: the caller checked AVX-512 BW and VNNI.
            let sink = unsafe { vnni::loop_of(1 << 16) };
            std::hint::black_box(sink);
            macs += (1u64 << 16) * vnni::MACS_PER_ITERATION;
        }
        best = best.max(macs as f64 / start.elapsed().as_secs_f64());
    }
    best
}

#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod vnni {
    use std::arch::x86_64::*;

    /// Twelve accumulators, each a `vpdpbusd` of 64 multiply-adds per iteration.
    pub const MACS_PER_ITERATION: u64 = 12 * 64;

    /// `n` iterations of twelve independent `vpdpbusd` (no dependency between them within an
    /// iteration, so the loop is bound by the units, not the latency).
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    pub unsafe fn loop_of(n: u32) -> i32 {
        let a = _mm512_set1_epi8(3);
        let b = _mm512_set1_epi8(5);
        let mut acc = [_mm512_setzero_si512(); 12];
        for _ in 0..n {
            for x in acc.iter_mut() {
                *x = _mm512_dpbusd_epi32(*x, a, b);
            }
            // Keep the operands opaque so the loop is not folded.
            std::hint::black_box(&a);
        }
        let mut sum = _mm512_setzero_si512();
        for x in acc {
            sum = _mm512_add_epi32(sum, x);
        }
        _mm512_reduce_add_epi32(sum)
    }
}
