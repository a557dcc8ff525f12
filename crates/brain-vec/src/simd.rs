//! Dot-product kernels with a runtime CPU check: the vector scan (f32 and int8 rows), the exact
//! rescoring, and the query-sized matmuls of the encoder.
//!
//! Release builds target baseline x86-64 (SSE2), so the compiler alone never uses AVX2 or FMA. Each
//! kernel here is written once as plain Rust with independent accumulators, then compiled twice: as is,
//! and inside a `#[target_feature(enable = "avx2,fma")]` wrapper that is chosen at run time when the CPU
//! has both (`is_x86_feature_detected!`, cached by std). The wrappers take whole blocks of rows, so the
//! check runs once per block, not once per row. Results of the two builds differ only by FMA rounding.

/// Lanes of independent accumulators: enough for the compiler to fill a 256-bit register and hide
/// the FMA latency.
const LANES: usize = 16;

/// `Σ a[i]·b[i]` with [`LANES`] accumulators, for f32 or int8 `a` (widened to f32); `FMA` picks
/// fused multiply-adds (only inside a wrapper whose target has FMA, where `mul_add` is one
/// instruction rather than a libm call).
#[inline(always)]
fn dot_lanes<const FMA: bool, T: Copy + Into<f32>>(a: &[T], b: &[f32]) -> f32 {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut acc = [0f32; LANES];
    let (ca, cb) = (a.chunks_exact(LANES), b.chunks_exact(LANES));
    let tail: f32 = ca
        .remainder()
        .iter()
        .zip(cb.remainder())
        .map(|(&x, y)| x.into() * y)
        .sum();
    for (x, y) in ca.zip(cb) {
        for l in 0..LANES {
            let v: f32 = x[l].into();
            acc[l] = if FMA {
                v.mul_add(y[l], acc[l])
            } else {
                acc[l] + v * y[l]
            };
        }
    }
    acc.iter().sum::<f32>() + tail
}

/// `out[r] = rows_r · q` for a block of rows, each `q.len()` long.
#[inline(always)]
fn scores_body<const FMA: bool, T: Copy + Into<f32>>(rows: &[T], q: &[f32], out: &mut [f32]) {
    for (o, row) in out.iter_mut().zip(rows.chunks_exact(q.len())) {
        *o = dot_lanes::<FMA, T>(row, q);
    }
}

/// `out[j·m + i] = x_i · w_j`, one dot product at a time (the baseline build).
fn dots_nt_plain(x: &[f32], k: usize, w: &[f32], out: &mut [f32]) {
    let m = x.len() / k.max(1);
    for (wj, o) in w.chunks_exact(k.max(1)).zip(out.chunks_exact_mut(m.max(1))) {
        for (xi, oi) in x.chunks_exact(k.max(1)).zip(o.iter_mut()) {
            *oi = dot_lanes::<false, f32>(xi, wj);
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::*;

    /// The dot products of `MX` rows of `x` with `MW` rows of `w` (each at least `k` long) as a
    /// register tile: each 8-wide step loads `MX + MW` vectors for `MX · MW` fused multiply-adds, and
    /// the independent accumulators hide the FMA latency (a lone dot product waits on one).
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    #[allow(unsafe_code)]
    fn tile<const MX: usize, const MW: usize>(
        x: [&[f32]; MX],
        w: [&[f32]; MW],
        k: usize,
    ) -> [[f32; MW]; MX] {
        let n = k / 8;
        for r in x.iter().chain(w.iter()) {
            assert!(r.len() >= k, "tile rows shorter than k");
        }
        let mut acc = [[_mm256_setzero_ps(); MW]; MX];
        for c in 0..n {
            let mut wv = [_mm256_setzero_ps(); MW];
            for b in 0..MW {
                // SAFETY: c·8 + 8 ≤ k ≤ w[b].len(), checked above.
                wv[b] = unsafe { _mm256_loadu_ps(w[b].as_ptr().add(c * 8)) };
            }
            for a in 0..MX {
                // SAFETY: as above, for x[a].
                let xv = unsafe { _mm256_loadu_ps(x[a].as_ptr().add(c * 8)) };
                for b in 0..MW {
                    acc[a][b] = _mm256_fmadd_ps(xv, wv[b], acc[a][b]);
                }
            }
        }
        let mut out = [[0f32; MW]; MX];
        for a in 0..MX {
            for b in 0..MW {
                let mut lanes = [0f32; 8];
                // SAFETY: `lanes` holds 8 f32.
                unsafe { _mm256_storeu_ps(lanes.as_mut_ptr(), acc[a][b]) };
                let tail: f32 = (n * 8..k).map(|i| x[a][i] * w[b][i]).sum();
                out[a][b] = lanes.iter().sum::<f32>() + tail;
            }
        }
        out
    }

    /// `out[j·m + i] = x_i · w_j` in 4 × 2 tiles.
    #[target_feature(enable = "avx2,fma")]
    pub(super) fn dots_nt(x: &[f32], k: usize, w: &[f32], out: &mut [f32]) {
        let m = x.len() / k;
        let xs: Vec<&[f32]> = x.chunks_exact(k).collect();
        let ws: Vec<&[f32]> = w.chunks_exact(k).take(out.len() / m.max(1)).collect();
        let (w2, w1) = ws.as_chunks::<2>();
        let (x4, x1) = xs.as_chunks::<4>();
        let done = 4 * x4.len();
        for (j, wp) in w2.iter().enumerate() {
            let o = &mut out[2 * j * m..(2 * j + 2) * m];
            for (g, xq) in x4.iter().enumerate() {
                let t = tile::<4, 2>(*xq, *wp, k);
                for a in 0..4 {
                    o[4 * g + a] = t[a][0];
                    o[m + 4 * g + a] = t[a][1];
                }
            }
            for (a, xr) in x1.iter().enumerate() {
                let t = tile::<1, 2>([xr], *wp, k);
                o[done + a] = t[0][0];
                o[m + done + a] = t[0][1];
            }
        }
        if let Some(wr) = w1.first() {
            let o = &mut out[2 * w2.len() * m..];
            for (i, xr) in xs.iter().enumerate() {
                o[i] = tile::<1, 1>([xr], [wr], k)[0][0];
            }
        }
    }
}

/// `out[j·m + i] = x_i · w_j` for the `m = x.len() / k` rows `x_i` and the rows `w_j` of `w`
/// (row length `k`): `w · xᵀ`, row-major. With AVX2 + FMA, in register tiles.
#[allow(unsafe_code)]
pub fn dots_nt(x: &[f32], k: usize, w: &[f32], out: &mut [f32]) {
    if k == 0 || x.len() < k {
        return;
    }
    #[cfg(target_arch = "x86_64")]
    if fast() {
        // SAFETY: the CPU was checked for AVX2 and FMA just above.
        return unsafe { avx2::dots_nt(x, k, w, out) };
    }
    dots_nt_plain(x, k, w, out)
}

/// Whether the AVX2 + FMA builds may run on this CPU.
#[inline]
pub fn fast() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Generate a dispatching kernel: the AVX2 + FMA build when [`fast`], the baseline build otherwise.
macro_rules! dispatch {
    ($(#[$doc:meta])* $name:ident, $avx:ident, $body:ident, ($($arg:ident: $ty:ty),*) $(-> $ret:ty)?) => {
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx2,fma")]
        fn $avx($($arg: $ty),*) $(-> $ret)? {
            $body::<true, _>($($arg),*)
        }

        $(#[$doc])*
        #[allow(unsafe_code)]
        pub fn $name($($arg: $ty),*) $(-> $ret)? {
            #[cfg(target_arch = "x86_64")]
            if fast() {
                // SAFETY: the CPU was checked for AVX2 and FMA just above.
                return unsafe { $avx($($arg),*) };
            }
            $body::<false, _>($($arg),*)
        }
    };
}

dispatch!(
    /// `Σ a[i]·b[i]` over the common length.
    dot, dot_avx2, dot_lanes, (a: &[f32], b: &[f32]) -> f32
);
dispatch!(
    /// `out[r] = rows_r · q` for the f32 rows (each `q.len()` long) of a block.
    scores_f32, scores_f32_avx2, scores_body, (rows: &[f32], q: &[f32], out: &mut [f32])
);
dispatch!(
    /// `out[r] = Σ rows_r[i]·q[i]` for the int8 rows (each `q.len()` long) of a block (unscaled).
    scores_i8, scores_i8_avx2, scores_body, (rows: &[i8], q: &[f32], out: &mut [f32])
);

#[cfg(test)]
mod tests {
    use super::*;

    fn naive(a: &[f32], b: &[f32]) -> f64 {
        a.iter()
            .zip(b)
            .map(|(x, y)| f64::from(*x) * f64::from(*y))
            .sum()
    }

    #[test]
    fn kernels_agree_with_a_float64_dot_product() {
        let a: Vec<f32> = (0..389)
            .map(|i| ((i * 37 % 101) as f32 - 50.0) / 50.0)
            .collect();
        let b: Vec<f32> = (0..389)
            .map(|i| ((i * 53 % 97) as f32 - 48.0) / 48.0)
            .collect();
        let exact = naive(&a, &b);
        for got in [dot(&a, &b), dot_lanes::<false, f32>(&a, &b)] {
            assert!((f64::from(got) - exact).abs() < 1e-3, "{got} vs {exact}");
        }
        let q: Vec<i8> = (0..389).map(|i: i32| (i * 29 % 255 - 127) as i8).collect();
        let qf: Vec<f32> = q.iter().map(|&v| f32::from(v)).collect();
        let mut out = [0f32; 1];
        scores_i8(&q, &b, &mut out);
        assert!((f64::from(out[0]) - naive(&qf, &b)).abs() < 1e-2);
        let mut out = [0f32; 1];
        scores_f32(&a, &b, &mut out);
        assert!((f64::from(out[0]) - exact).abs() < 1e-3);
    }

    #[test]
    fn dots_nt_is_w_times_x_transposed() {
        let (m, k, n) = (7, 20, 5);
        let x: Vec<f32> = (0..m * k).map(|i| (i % 7) as f32 - 3.0).collect();
        let w: Vec<f32> = (0..n * k).map(|i| (i % 5) as f32 - 2.0).collect();
        let mut out = vec![0f32; n * m];
        dots_nt(&x, k, &w, &mut out);
        let mut plain = vec![0f32; n * m];
        dots_nt_plain(&x, k, &w, &mut plain);
        assert_eq!(out, plain);
        for j in 0..n {
            for i in 0..m {
                let want = naive(&x[i * k..(i + 1) * k], &w[j * k..(j + 1) * k]);
                assert_eq!(f64::from(out[j * m + i]), want);
            }
        }
    }
}
