//! Dot-product kernels with a runtime CPU check: the vector scan (f32 and int8 rows), the exact
//! rescoring, and the query-sized matmuls of the encoder.
//!
//! Release builds target baseline x86-64 (SSE2), so the compiler alone never uses AVX2 or FMA. Each
//! kernel here is written once as plain Rust with independent accumulators, then compiled twice: as is,
//! and inside a `#[target_feature(enable = "avx2,fma")]` wrapper that is chosen at run time when the CPU
//! has both (`is_x86_feature_detected!`, cached by std). The wrappers take whole blocks of rows, so the
//! check runs once per block, not once per row. Results of the two builds differ only by FMA rounding.
//! The int8 scan's kernel is integer (int8 rows × an int16 query, exact in int32), with `vpmaddwd`
//! intrinsics in the AVX2 build.

/// Lanes of independent accumulators: enough for the compiler to fill a 256-bit register and hide
/// the FMA latency.
const LANES: usize = 16;

/// `Σ a[i]·b[i]` with [`LANES`] accumulators; `FMA` picks
/// fused multiply-adds (only inside a wrapper whose target has FMA, where `mul_add` is one
/// instruction rather than a libm call).
#[inline(always)]
fn dot_lanes<const FMA: bool>(a: &[f32], b: &[f32]) -> f32 {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut acc = [0f32; LANES];
    let (ca, cb) = (a.chunks_exact(LANES), b.chunks_exact(LANES));
    let tail: f32 = ca
        .remainder()
        .iter()
        .zip(cb.remainder())
        .map(|(x, y)| x * y)
        .sum();
    for (x, y) in ca.zip(cb) {
        for l in 0..LANES {
            acc[l] = if FMA {
                x[l].mul_add(y[l], acc[l])
            } else {
                acc[l] + x[l] * y[l]
            };
        }
    }
    acc.iter().sum::<f32>() + tail
}

/// `out[r] = rows_r · q` for a block of rows, each `q.len()` long.
#[inline(always)]
fn scores_body<const FMA: bool>(rows: &[f32], q: &[f32], out: &mut [f32]) {
    for (o, row) in out.iter_mut().zip(rows.chunks_exact(q.len())) {
        *o = dot_lanes::<FMA>(row, q);
    }
}

/// `out[r] = Σ rows_r[i]·q[i]` in exact integer arithmetic, for int8 rows and an int16 query (each
/// `q.len()` long). The caller keeps `q.len() · 127 · max |q|` below 2³¹.
#[inline(always)]
fn scores_i8_i16_body(rows: &[i8], q: &[i16], out: &mut [i32]) {
    for (o, row) in out.iter_mut().zip(rows.chunks_exact(q.len().max(1))) {
        *o = row
            .iter()
            .zip(q)
            .map(|(&a, &b)| i32::from(a) * i32::from(b))
            .sum();
    }
}

/// `out[j·m + i] = x_i · w_j`, one dot product at a time (the baseline build).
fn dots_nt_plain(x: &[f32], k: usize, w: &[f32], out: &mut [f32]) {
    let m = x.len() / k.max(1);
    for (wj, o) in w.chunks_exact(k.max(1)).zip(out.chunks_exact_mut(m.max(1))) {
        for (xi, oi) in x.chunks_exact(k.max(1)).zip(o.iter_mut()) {
            *oi = dot_lanes::<false>(xi, wj);
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

    /// `out[r] = Σ rows_r[i]·q[i]` for int8 rows and an int16 query: 16 products per step, widened
    /// to int16 and summed in pairs into int32 lanes (`vpmaddwd`), two rows at a time so each query
    /// load serves both.
    #[target_feature(enable = "avx2,fma")]
    #[allow(unsafe_code)]
    pub(super) fn scores_i8_i16(rows: &[i8], q: &[i16], out: &mut [i32]) {
        let d = q.len();
        let n = d / 16;
        let hsum = |v: __m256i| -> i32 {
            let mut lanes = [0i32; 8];
            // SAFETY: `lanes` holds 8 i32.
            unsafe { _mm256_storeu_si256(lanes.as_mut_ptr().cast::<__m256i>(), v) };
            lanes.iter().sum()
        };
        let tail = |row: &[i8]| -> i32 {
            (n * 16..d)
                .map(|i| i32::from(row[i]) * i32::from(q[i]))
                .sum()
        };
        let mut pairs = rows.chunks_exact(2 * d.max(1));
        let mut outs = out.chunks_exact_mut(2);
        for (two, o) in (&mut pairs).zip(&mut outs) {
            let (a, b) = two.split_at(d);
            let (mut acc_a, mut acc_b) = (_mm256_setzero_si256(), _mm256_setzero_si256());
            for c in 0..n {
                // SAFETY: c·16 + 16 ≤ d = a.len() = b.len() = q.len().
                unsafe {
                    let qv = _mm256_loadu_si256(q.as_ptr().add(c * 16).cast::<__m256i>());
                    let av = _mm256_cvtepi8_epi16(_mm_loadu_si128(
                        a.as_ptr().add(c * 16).cast::<__m128i>(),
                    ));
                    let bv = _mm256_cvtepi8_epi16(_mm_loadu_si128(
                        b.as_ptr().add(c * 16).cast::<__m128i>(),
                    ));
                    acc_a = _mm256_add_epi32(acc_a, _mm256_madd_epi16(av, qv));
                    acc_b = _mm256_add_epi32(acc_b, _mm256_madd_epi16(bv, qv));
                }
            }
            o[0] = hsum(acc_a) + tail(a);
            o[1] = hsum(acc_b) + tail(b);
        }
        // An odd last row: the plain loop.
        super::scores_i8_i16_body(pairs.remainder(), q, outs.into_remainder());
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

/// `out[r] = Σ rows_r[i]·q[i]`, exact, for the int8 rows (each `q.len()` long) of a block and an
/// int16 query; the caller keeps `q.len() · 127 · max |q|` below 2³¹ (see `scan::quantize_query`).
#[allow(unsafe_code)]
pub fn scores_i8_i16(rows: &[i8], q: &[i16], out: &mut [i32]) {
    #[cfg(target_arch = "x86_64")]
    if fast() && !q.is_empty() {
        // SAFETY: the CPU was checked for AVX2 and FMA just above.
        return unsafe { avx2::scores_i8_i16(rows, q, out) };
    }
    scores_i8_i16_body(rows, q, out)
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

/// Whether AVX-512 F (with BW, AVX2 and FMA) builds may run on this CPU.
#[inline]
pub fn avx512() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512bw")
            && fast()
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Define `fn $name(args)` that runs `$body` (an `#[inline(always)]` function of the same
/// arguments, returning nothing) compiled for the widest vector unit this CPU has: AVX-512, else
/// AVX2 + FMA, else the baseline. The body is inlined into a wrapper with those target features, so
/// its loops are vectorized 16 or 8 lanes wide instead of SSE2's 4. For element-wise kernels in
/// plain Rust (no `mul_add`, so every build rounds alike: the results are the same bit for bit). Call
/// it per block of rows, not per element: the CPU check is a cached load, the call is not inlined.
macro_rules! widest {
    ($(#[$doc:meta])* $vis:vis fn $name:ident($($arg:ident: $ty:ty),*) => $body:path) => {
        $(#[$doc])*
        #[allow(unsafe_code)]
        $vis fn $name($($arg: $ty),*) {
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx512f,avx512bw,avx2,fma")]
                fn wide($($arg: $ty),*) {
                    $body($($arg),*)
                }
                #[target_feature(enable = "avx2,fma")]
                fn mid($($arg: $ty),*) {
                    $body($($arg),*)
                }
                if $crate::simd::avx512() {
                    // SAFETY: the CPU was checked for these features just above.
                    return unsafe { wide($($arg),*) };
                }
                if $crate::simd::fast() {
                    // SAFETY: as above.
                    return unsafe { mid($($arg),*) };
                }
            }
            $body($($arg),*)
        }
    };
}
pub(crate) use widest;

/// Generate a dispatching kernel: the AVX2 + FMA build when [`fast`], the baseline build otherwise.
macro_rules! dispatch {
    ($(#[$doc:meta])* $name:ident, $avx:ident, $body:ident, ($($arg:ident: $ty:ty),*) $(-> $ret:ty)?) => {
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx2,fma")]
        fn $avx($($arg: $ty),*) $(-> $ret)? {
            $body::<true>($($arg),*)
        }

        $(#[$doc])*
        #[allow(unsafe_code)]
        pub fn $name($($arg: $ty),*) $(-> $ret)? {
            #[cfg(target_arch = "x86_64")]
            if fast() {
                // SAFETY: the CPU was checked for AVX2 and FMA just above.
                return unsafe { $avx($($arg),*) };
            }
            $body::<false>($($arg),*)
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
        for got in [dot(&a, &b), dot_lanes::<false>(&a, &b)] {
            assert!((f64::from(got) - exact).abs() < 1e-3, "{got} vs {exact}");
        }
        let mut out = [0f32; 1];
        scores_f32(&a, &b, &mut out);
        assert!((f64::from(out[0]) - exact).abs() < 1e-3);
    }

    #[test]
    fn integer_scores_are_exact() {
        let d = 389; // not a multiple of 16: the tail too
        let rows: Vec<i8> = (0..5 * d)
            .map(|i| (i * 29 % 255) as i32 - 127)
            .map(|v| v as i8)
            .collect();
        let q: Vec<i16> = (0..d)
            .map(|i| ((i * 7919 % 65535) as i32 - 32767) as i16)
            .collect();
        let want: Vec<i32> = rows
            .chunks(d)
            .map(|r| {
                r.iter()
                    .zip(&q)
                    .map(|(&a, &b)| i32::from(a) * i32::from(b))
                    .sum()
            })
            .collect();
        let mut got = vec![0i32; 5];
        scores_i8_i16(&rows, &q, &mut got);
        assert_eq!(got, want);
        let mut plain = vec![0i32; 5];
        scores_i8_i16_body(&rows, &q, &mut plain);
        assert_eq!(plain, want);
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
