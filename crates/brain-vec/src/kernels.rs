//! CPU kernels the BERT forward pass spends its non-matmul time in, fused and parallel.
//!
//! Element-wise ops that run on one thread and call libm per element (candle's, before) made GELU's
//! `erff` and softmax's `expf` alone 13 % of an embedding run on a 2-core box (perf, 2026-11-22).
//! These do one pass over rows of a row-major matrix with rayon, in branch-free arithmetic the
//! compiler vectorizes:
//!
//! * [`bias_add`] — `x += bias` over each row, in place;
//! * [`bias_gelu`] — `x = gelu(x + bias)`, BERT's exact (erf) GELU, in place;
//! * [`softmax`] — softmax of each row, in place;
//! * [`AddNorm`] — `LayerNorm(x + bias + residual)`, BERT's add & norm in one pass.
//!
//! [`exp`] is Cephes' `expf` (range reduction by ln 2, a degree-6 polynomial; ~1 ulp), [`erf`] is
//! Abramowitz & Stegun 7.1.26 (absolute error ≤ 1.5e-7 in exact arithmetic, ≤ 6e-7 in f32). Parity of the whole model with a float64
//! reference is tested (cosine ≥ 0.9999, tests/tests/vec.rs; logits within 1e-4, tests/cross.rs).

use rayon::prelude::*;

use crate::simd;

/// Rows per rayon task: enough work per task that scheduling stays negligible.
const ROWS_PER_TASK: usize = 64;

/// Below this many elements a kernel runs on the calling thread: waking the pool costs more than the
/// work (a query of a dozen tokens spent 15 % of its time switching threads).
const PARALLEL_ELEMENTS: usize = 1 << 16;

/// `e^x` in f32 without a libm call (Cephes `expf`): `x = n·ln2 + r`, `e^r` by a polynomial, `2^n`
/// built in the exponent bits. Inputs are clamped to the finite range.
#[inline(always)]
// Cephes' coefficients are kept digit for digit as published; each literal rounds to the same f32.
#[allow(clippy::excessive_precision)]
pub fn exp(x: f32) -> f32 {
    const LOG2E: f32 = std::f32::consts::LOG2_E;
    const LN2_HI: f32 = 0.693_359_4;
    const LN2_LO: f32 = -2.121_944_4e-4;
    // Adding and subtracting 1.5·2^23 rounds to the nearest integer in plain float arithmetic.
    const ROUND: f32 = 12_582_912.0;
    let x = x.clamp(-87.0, 88.0);
    let n = (x * LOG2E + ROUND) - ROUND;
    let r = x - n * LN2_HI - n * LN2_LO;
    let mut p = 1.987_569_1e-4_f32;
    p = p * r + 1.398_199_9e-3;
    p = p * r + 8.333_452e-3;
    p = p * r + 4.166_579_6e-2;
    p = p * r + 1.666_666_5e-1;
    p = p * r + 5.000_000_1e-1;
    let y = p * r * r + r + 1.0;
    // 2^n from the exponent bits. `n + 127` (1..=254 after the clamp) is an integer, so adding
    // 1.5·2^23 leaves it in the low mantissa bits, and the shift moves it into the exponent field
    // (the high bits shift out) — integer lanes the compiler vectorizes, where `n as i32` (a
    // saturating cast) is scalar code.
    y * f32::from_bits((n + (127.0 + ROUND)).to_bits() << 23)
}

/// `erf(x)`, Abramowitz & Stegun 7.1.26 (|error| ≤ 1.5e-7).
#[inline(always)]
pub fn erf(x: f32) -> f32 {
    let a = x.abs();
    let t = 1.0 / (1.0 + 0.327_591_1 * a);
    let poly = ((((1.061_405_4 * t - 1.453_152) * t + 1.421_413_8) * t - 0.284_496_74) * t
        + 0.254_829_6)
        * t;
    (1.0 - poly * exp(-a * a)).copysign(x)
}

/// Exact GELU (BERT's `hidden_act: gelu`): `x/2 · (1 + erf(x/√2))`.
#[inline(always)]
pub fn gelu(x: f32) -> f32 {
    0.5 * x * (1.0 + erf(x * std::f32::consts::FRAC_1_SQRT_2))
}

/// `x += bias` for each `bias.len()`-long row of `x`, in place: a matmul's fresh output is not
/// copied into a zeroed one.
pub fn bias_add(x: &mut [f32], bias: &[f32]) -> Result<(), String> {
    bias_map::<false>(x, bias)
}

/// `x = gelu(x + bias)` for each row of `x`, in place: the feed-forward's widest matrix (tokens ×
/// 1536 for bge) was a new zeroed buffer per layer, faulted in page by page.
pub fn bias_gelu(x: &mut [f32], bias: &[f32]) -> Result<(), String> {
    bias_map::<true>(x, bias)
}

fn bias_map<const GELU: bool>(xs: &mut [f32], bs: &[f32]) -> Result<(), String> {
    let n = bs.len();
    if n == 0 || !xs.len().is_multiple_of(n) {
        return Err(format!("a bias of {n} for {} numbers", xs.len()));
    }
    let rows = |o: &mut [f32]| {
        if GELU {
            bias_gelu_rows(o, bs)
        } else {
            bias_add_rows(o, bs)
        }
    };
    if xs.len() < PARALLEL_ELEMENTS {
        xs.chunks_mut(n * ROWS_PER_TASK).for_each(rows);
    } else {
        xs.par_chunks_mut(n * ROWS_PER_TASK).for_each(rows);
    }
    Ok(())
}

simd::widest!(fn bias_add_rows(o: &mut [f32], bs: &[f32]) => bias_rows::<false>);
simd::widest!(fn bias_gelu_rows(o: &mut [f32], bs: &[f32]) => bias_rows::<true>);

/// `o += bias` (or `o = gelu(o + bias)`) row by row.
#[inline(always)]
fn bias_rows<const GELU: bool>(o: &mut [f32], bs: &[f32]) {
    let n = bs.len().max(1);
    for orow in o.chunks_exact_mut(n) {
        for (o, &b) in orow.iter_mut().zip(bs) {
            *o = if GELU { gelu(*o + b) } else { *o + b };
        }
    }
}

/// Reduce `xs` with `f` over eight independent lanes (a strict left-to-right float reduction does
/// not vectorize; eight lanes do).
#[inline(always)]
fn lanes(xs: &[f32], init: f32, f: impl Fn(f32, f32) -> f32) -> f32 {
    let mut acc = [init; 8];
    let chunks = xs.chunks_exact(8);
    let tail = chunks.remainder();
    for c in chunks {
        for l in 0..8 {
            acc[l] = f(acc[l], c[l]);
        }
    }
    let mut r = acc.iter().copied().fold(init, &f);
    for &x in tail {
        r = f(r, x);
    }
    r
}

/// Softmax of each `k`-long row of `x`, in place.
pub fn softmax(x: &mut [f32], k: usize) -> Result<(), String> {
    if k == 0 || !x.len().is_multiple_of(k) {
        return Err(format!("rows of {k} in {} numbers", x.len()));
    }
    if x.len() < PARALLEL_ELEMENTS {
        softmax_wide(x, k);
    } else {
        x.par_chunks_mut(k * ROWS_PER_TASK)
            .for_each(|x| softmax_wide(x, k));
    }
    Ok(())
}

simd::widest!(fn softmax_wide(x: &mut [f32], k: usize) => softmax_rows);

/// Softmax of each `k`-long row of `x`, in place.
#[inline(always)]
fn softmax_rows(x: &mut [f32], k: usize) {
    for orow in x.chunks_exact_mut(k) {
        let max = lanes(orow, f32::NEG_INFINITY, f32::max);
        for o in orow.iter_mut() {
            *o = exp(*o - max);
        }
        let inv = 1.0 / lanes(orow, 0.0, |a, b| a + b);
        orow.iter_mut().for_each(|o| *o *= inv);
    }
}

/// BERT's "add & norm" after the attention output and after the feed-forward, in one pass per
/// row: `LayerNorm(x + bias + residual)` over the last dimension. Before, the bias, the residual and
/// the norm were three passes and two fresh tensors of the batch's size.
pub struct AddNorm {
    pub bias: Vec<f32>,
    pub gamma: Vec<f32>,
    pub beta: Vec<f32>,
    pub eps: f32,
}

impl AddNorm {
    /// `LayerNorm(x + bias + residual)` of each row of `x` (rows as long as the norm).
    pub fn apply(&self, x: &[f32], r: &[f32]) -> Result<Vec<f32>, String> {
        let k = self.gamma.len();
        if k == 0
            || x.len() != r.len()
            || !x.len().is_multiple_of(k)
            || self.bias.len() != k
            || self.beta.len() != k
        {
            return Err(format!(
                "add-norm: {} numbers, a residual of {}, a norm of {k}",
                x.len(),
                r.len()
            ));
        }
        let mut out = vec![0f32; x.len()];
        let rows = |o: &mut [f32], x: &[f32], r: &[f32]| {
            add_norm_wide(o, x, r, &self.bias, &self.gamma, &self.beta, self.eps)
        };
        if x.len() < PARALLEL_ELEMENTS {
            rows(&mut out, x, r);
        } else {
            let chunk = k * ROWS_PER_TASK;
            out.par_chunks_mut(chunk)
                .zip(x.par_chunks(chunk))
                .zip(r.par_chunks(chunk))
                .for_each(|((o, x), r)| rows(o, x, r));
        }
        Ok(out)
    }
}

simd::widest!(fn add_norm_wide(o: &mut [f32], x: &[f32], r: &[f32], bias: &[f32], gamma: &[f32], beta: &[f32], eps: f32) => add_norm_rows);

#[inline(always)]
fn add_norm_rows(
    o: &mut [f32],
    x: &[f32],
    r: &[f32],
    bias: &[f32],
    gamma: &[f32],
    beta: &[f32],
    eps: f32,
) {
    let k = gamma.len();
    for ((o, x), r) in o
        .chunks_exact_mut(k)
        .zip(x.chunks_exact(k))
        .zip(r.chunks_exact(k))
    {
        for (((o, &x), &r), &b) in o.iter_mut().zip(x).zip(r).zip(bias) {
            *o = x + b + r;
        }
        let mean = lanes(o, 0.0, |a, b| a + b) / k as f32;
        o.iter_mut().for_each(|v| *v -= mean);
        let mut acc = [0f32; 8];
        let chunks = o.chunks_exact(8);
        let tail = chunks.remainder();
        for c in chunks {
            for l in 0..8 {
                acc[l] += c[l] * c[l];
            }
        }
        let var = (acc.iter().sum::<f32>() + tail.iter().map(|v| v * v).sum::<f32>()) / k as f32;
        let inv = 1.0 / (var + eps).sqrt();
        for ((o, &g), &b) in o.iter_mut().zip(gamma).zip(beta) {
            *o = *o * inv * g + b;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exp_and_erf_are_accurate() {
        let mut x = -80.0f32;
        while x < 80.0 {
            let (got, want) = (exp(x), x.exp());
            assert!(
                ((got - want) / want).abs() < 3e-7,
                "exp({x}) = {got}, want {want}"
            );
            x += 0.037;
        }
        let mut x = -6.0f64;
        while x < 6.0 {
            let got = f64::from(erf(x as f32));
            assert!((got - libm::erf(x)).abs() < 6e-7, "erf({x}) = {got}");
            x += 0.0013;
        }
        // Reference values of x·Φ(x) (float64).
        for (x, want) in [
            (-3.0, -0.004_049_7),
            (-1.0, -0.158_655_3),
            (0.0, 0.0),
            (0.5, 0.345_731_4),
            (2.0, 1.954_499_7),
        ] {
            assert!((gelu(x) - want).abs() < 1e-6, "gelu({x}) = {}", gelu(x));
        }
    }

    /// Row-wise references in float64.
    fn layer_norm64(x: &[f64], gamma: &[f32], beta: &[f32], eps: f64) -> Vec<f64> {
        let k = gamma.len();
        x.chunks(k)
            .flat_map(|row| {
                let mean = row.iter().sum::<f64>() / k as f64;
                let var = row.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / k as f64;
                row.iter()
                    .zip(gamma.iter().zip(beta))
                    .map(move |(v, (g, b))| {
                        (v - mean) / (var + eps).sqrt() * f64::from(*g) + f64::from(*b)
                    })
                    .collect::<Vec<_>>()
            })
            .collect()
    }

    fn max_diff(got: &[f32], want: &[f64]) -> f64 {
        assert_eq!(got.len(), want.len());
        got.iter()
            .zip(want)
            .map(|(g, w)| (f64::from(*g) - w).abs())
            .fold(0.0, f64::max)
    }

    #[test]
    fn fused_ops_match_float64_references() {
        let gelu64 = |x: f64| 0.5 * x * (1.0 + libm::erf(x / std::f64::consts::SQRT_2));
        let b = [0.1f32, -0.2, 0.3, -0.4];
        // Short (the calling thread) and long enough for the pool.
        for n in [24usize, 1 << 17] {
            let x: Vec<f32> = (0..n).map(|i| (i % 997) as f32 * 0.37e-2 - 2.0).collect();
            let sum: Vec<f64> = x
                .iter()
                .enumerate()
                .map(|(i, v)| f64::from(*v) + f64::from(b[i % 4]))
                .collect();
            let mut got = x.clone();
            bias_add(&mut got, &b).expect("fits");
            assert!(max_diff(&got, &sum) < 1e-6);
            let mut got = x.clone();
            bias_gelu(&mut got, &b).expect("fits");
            let want: Vec<f64> = sum.iter().map(|&v| gelu64(v)).collect();
            assert!(max_diff(&got, &want) < 1e-5);
        }
        assert!(
            bias_add(&mut [0f32; 10], &b).is_err(),
            "10 is not rows of 4"
        );
        assert!(bias_gelu(&mut [0f32; 8], &[]).is_err());
        // Add & norm against a float64 layer norm of the sum, rows long enough for the lanes.
        let x: Vec<f32> = (0..600).map(|i| (i as f32 * 0.37 - 2.0).sin()).collect();
        let r: Vec<f32> = x.iter().map(|v| (v * -0.5 + 0.25).cos()).collect();
        let bias: Vec<f32> = (0..20).map(|i| i as f32 * 0.01 - 0.1).collect();
        let gamma: Vec<f32> = (0..20).map(|i| 1.0 + i as f32 * 0.02).collect();
        let beta: Vec<f32> = (0..20).map(|i| i as f32 * -0.03).collect();
        let sum: Vec<f64> = (0..600)
            .map(|i| f64::from(x[i]) + f64::from(bias[i % 20]) + f64::from(r[i]))
            .collect();
        let want = layer_norm64(&sum, &gamma, &beta, 1e-12);
        let norm = AddNorm {
            bias,
            gamma,
            beta,
            eps: 1e-12,
        };
        assert!(max_diff(&norm.apply(&x, &r).expect("fits"), &want) < 1e-5);
        assert!(norm.apply(&x, &r[..60]).is_err());
        assert!(norm.apply(&x[..590], &r[..590]).is_err());
        // Softmax, in place, rows of 3.
        let s: Vec<f32> = (0..36).map(|i| i as f32 * 0.7 - 9.0).collect();
        let want: Vec<f64> = s
            .chunks(3)
            .flat_map(|row| {
                let m = row.iter().fold(f32::NEG_INFINITY, |a, &b| a.max(b));
                let e: Vec<f64> = row.iter().map(|&v| f64::from(v - m).exp()).collect();
                let z: f64 = e.iter().sum();
                e.into_iter().map(move |v| v / z)
            })
            .collect();
        let mut got = s.clone();
        softmax(&mut got, 3).expect("rows");
        assert!(max_diff(&got, &want) < 1e-6);
        assert!(softmax(&mut got, 5).is_err());
    }
}
