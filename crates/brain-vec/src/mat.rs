//! The f32 matrix product the encoder runs on: gemm-f32's kernels (AVX-512, AVX2 + FMA or scalar,
//! chosen at run time for the CPU), called on strided views of plain slices.
//!
//! This is all the encoder took from candle (issue 59: candle-core and candle-nn were 142 CPU-s of
//! a clean build of 1,240, with four gemm element types the encoder never used). Views with
//! strides let attention read Q, K and V where the fused projection wrote them, and write each
//! head's context into its columns of the output, with no copies or transposes between.

use gemm_common::Parallelism;

/// A row-major matrix of f32.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Mat {
    pub rows: usize,
    pub cols: usize,
    pub data: Vec<f32>,
}

impl Mat {
    /// `data` as `rows × cols`; an error when the sizes disagree.
    pub fn new(rows: usize, cols: usize, data: Vec<f32>) -> Result<Mat, String> {
        if rows.checked_mul(cols) != Some(data.len()) {
            return Err(format!("{} numbers for {rows} × {cols}", data.len()));
        }
        Ok(Mat { rows, cols, data })
    }

    /// Row `i`.
    pub fn row(&self, i: usize) -> &[f32] {
        &self.data[i * self.cols..(i + 1) * self.cols]
    }

    /// The view of the whole matrix.
    pub fn view(&self) -> View<'_> {
        View {
            data: &self.data,
            rows: self.rows,
            cols: self.cols,
            row_stride: self.cols,
            col_stride: 1,
        }
    }
}

/// A `rows × cols` matrix read from `data` with strides: element `(i, j)` is
/// `data[i · row_stride + j · col_stride]`.
#[derive(Debug, Clone, Copy)]
pub struct View<'a> {
    pub data: &'a [f32],
    pub rows: usize,
    pub cols: usize,
    pub row_stride: usize,
    pub col_stride: usize,
}

impl<'a> View<'a> {
    /// Rows `at..at + rows` and columns `col..col + cols` of a row-major `data` whose rows are
    /// `width` long.
    pub fn block(
        data: &'a [f32],
        width: usize,
        at: usize,
        rows: usize,
        col: usize,
        cols: usize,
    ) -> View<'a> {
        View {
            data: data.get(at * width + col..).unwrap_or(&[]),
            rows,
            cols,
            row_stride: width,
            col_stride: 1,
        }
    }

    /// The transpose, without moving anything.
    pub fn t(self) -> View<'a> {
        View {
            rows: self.cols,
            cols: self.rows,
            row_stride: self.col_stride,
            col_stride: self.row_stride,
            ..self
        }
    }

    /// The element one past the last this view reads (0 when it reads none).
    fn span(&self, rows: usize, cols: usize, rs: usize, cs: usize) -> Option<usize> {
        if rows == 0 || cols == 0 {
            return Some(0);
        }
        (rows - 1)
            .checked_mul(rs)?
            .checked_add((cols - 1).checked_mul(cs)?)?
            .checked_add(1)
    }

    fn fits(&self) -> bool {
        self.span(self.rows, self.cols, self.row_stride, self.col_stride)
            .is_some_and(|end| end <= self.data.len())
            && isize::try_from(self.row_stride).is_ok()
            && isize::try_from(self.col_stride).is_ok()
    }
}

/// `dst = scale · a · b`: `a` is `m × k`, `b` is `k × n`, `dst` is `m × n` with rows `dst_stride`
/// apart (its other elements are left alone). Every index is checked before gemm runs; the product
/// uses the rayon pool when gemm's threading threshold says it is worth it.
pub fn matmul(
    a: View<'_>,
    b: View<'_>,
    scale: f32,
    dst: &mut [f32],
    dst_stride: usize,
) -> Result<(), String> {
    let (m, k, n) = (a.rows, a.cols, b.cols);
    if b.rows != k {
        return Err(format!("a product of {m} × {k} and {} × {n}", b.rows));
    }
    let dst_fits = View {
        data: dst,
        rows: m,
        cols: n,
        row_stride: dst_stride,
        col_stride: 1,
    }
    .fits();
    if !a.fits() || !b.fits() || !dst_fits || n > dst_stride.max(1) && m > 1 {
        return Err(format!(
            "a product of {m} × {k} and {k} × {n} into {} numbers does not fit its data",
            dst.len()
        ));
    }
    if m == 0 || n == 0 {
        return Ok(());
    }
    if k == 0 {
        for i in 0..m {
            dst[i * dst_stride..i * dst_stride + n].fill(0.0);
        }
        return Ok(());
    }
    let threads = rayon::current_num_threads();
    let parallelism = if threads > 1 {
        Parallelism::Rayon(threads)
    } else {
        Parallelism::None
    };
    // gemm's microkernel fills column-major blocks of its destination: a row-major `dst` is
    // computed as `dstᵀ = bᵀ · aᵀ` (what the `gemm` crate's entry point does, and candle through
    // it). Called the other way round, a batch's linear layers packed their input every time:
    // 19 % more instructions per embedding (cachegrind, bge-small, 2026-12-08).
    let (m, n, lhs, rhs) = (n, m, b.t(), a.t());
    // SAFETY: every element gemm reads or writes lies within the slices — checked above for each
    // operand from its shape and strides (`View::fits`; transposing swaps them and the problem
    // with them) — and `dst` is borrowed mutably while `a` and `b` are shared, so they do not
    // overlap. Strides fit `isize` (checked).
    #[allow(unsafe_code)]
    unsafe {
        gemm_f32::gemm::f32::get_gemm_fn()(
            m,
            n,
            k,
            dst.as_mut_ptr(),
            dst_stride as isize,
            1,
            false,
            lhs.data.as_ptr(),
            lhs.col_stride as isize,
            lhs.row_stride as isize,
            rhs.data.as_ptr(),
            rhs.col_stride as isize,
            rhs.row_stride as isize,
            0.0,
            scale,
            false,
            false,
            false,
            parallelism,
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive(a: View<'_>, b: View<'_>) -> Vec<f64> {
        let mut out = vec![0f64; a.rows * b.cols];
        for i in 0..a.rows {
            for j in 0..b.cols {
                for l in 0..a.cols {
                    out[i * b.cols + j] += f64::from(a.data[i * a.row_stride + l * a.col_stride])
                        * f64::from(b.data[l * b.row_stride + j * b.col_stride]);
                }
            }
        }
        out
    }

    #[test]
    fn products_of_strided_views_match_a_naive_one() {
        let data: Vec<f32> = (0..3000)
            .map(|i| ((i * 37 % 101) as f32 - 50.0) / 25.0)
            .collect();
        // A 7 × 5 block of a 20-wide matrix times the transpose of another block (5 × 9).
        let a = View::block(&data, 20, 2, 7, 3, 5);
        let b = View::block(&data, 20, 10, 9, 1, 5).t();
        for (m, k, n) in [(7, 5, 9), (1, 5, 9)] {
            let a = View { rows: m, ..a };
            let mut dst = vec![f32::NAN; m * 12];
            matmul(a, View { cols: n, ..b }, 0.5, &mut dst, 12).expect("fits");
            let want = naive(a, b);
            for i in 0..m {
                for j in 0..n {
                    let got = f64::from(dst[i * 12 + j]);
                    assert!((got - 0.5 * want[i * n + j]).abs() < 1e-4, "{i},{j}: {got}");
                }
                // Columns past n are not written.
                assert!(dst[i * 12 + n..(i + 1) * 12].iter().all(|x| x.is_nan()));
            }
            assert_eq!(k, a.cols);
        }
        // Large enough for the pool, contiguous.
        let x = Mat::new(64, 40, data[..2560].to_vec()).expect("shape");
        let w = Mat::new(40, 15, data[..600].to_vec()).expect("shape");
        let mut y = vec![0f32; 64 * 15];
        matmul(x.view(), w.view(), 1.0, &mut y, 15).expect("fits");
        let want = naive(x.view(), w.view());
        assert!(
            y.iter()
                .zip(&want)
                .all(|(g, w)| (f64::from(*g) - w).abs() < 1e-3)
        );
    }

    #[test]
    fn views_that_reach_past_their_data_are_refused() {
        let data = vec![1f32; 20];
        let a = View::block(&data, 5, 0, 4, 0, 5);
        let too_tall = View { rows: 5, ..a };
        let mut dst = vec![0f32; 25];
        assert!(matmul(too_tall, a.t(), 1.0, &mut dst, 5).is_err());
        assert!(matmul(a, a.t(), 1.0, &mut dst[..15], 4).is_err());
        assert!(
            matmul(a, a, 1.0, &mut dst, 5).is_err(),
            "inner sizes differ"
        );
        let mut ok = vec![0f32; 16];
        matmul(a, a.t(), 1.0, &mut ok, 4).expect("4 × 4");
        assert!(ok.iter().all(|&x| x == 5.0));
        // Nothing to multiply: zeros, no call.
        let empty = View { cols: 0, ..a };
        let mut z = vec![7f32; 16];
        matmul(empty, View { rows: 0, ..a.t() }, 1.0, &mut z, 4).expect("k = 0");
        assert!(z.iter().all(|&x| x == 0.0));
    }
}
