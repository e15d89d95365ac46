//! The values of held rows: f32 while every one is an f32 exactly.

use super::Chunked;

/// The values of the rows: f32 while every one is an f32 exactly.
#[derive(Clone)]
pub enum Values {
    Single(Chunked<f32>),
    Double(Widened),
}

/// Values once one is not an f32 exactly: those before it as they were held
/// (f32, exact), the rest as f64; widening copies nothing.
#[derive(Clone, Default)]
pub struct Widened {
    pub narrow: Chunked<f32>,
    pub wide: Chunked<f64>,
}

impl Widened {
    /// Values given as f64.
    pub fn new(values: impl IntoIterator<Item = f64>) -> Widened {
        let mut out = Widened::default();
        out.wide.extend(values);
        out
    }

    pub fn len(&self) -> usize {
        self.narrow.len() + self.wide.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    #[inline(always)]
    pub fn get(&self, i: usize) -> f64 {
        let n = self.narrow.len();
        if i < n {
            self.narrow.get(i) as f64
        } else {
            self.wide.get(i - n)
        }
    }

    /// The values in order.
    pub fn iter(&self) -> impl Iterator<Item = f64> + '_ {
        self.narrow.iter().map(|x| x as f64).chain(self.wide.iter())
    }

    /// The values as one `Vec`.
    pub fn to_vec(&self) -> Vec<f64> {
        let mut out = Vec::with_capacity(self.len());
        out.extend(self.iter());
        out
    }

    pub fn memory_bytes(&self) -> usize {
        self.narrow.memory_bytes() + self.wide.memory_bytes()
    }
}

impl Default for Values {
    fn default() -> Self {
        Values::Single(Chunked::default())
    }
}

impl Values {
    pub fn len(&self) -> usize {
        match self {
            Values::Single(v) => v.len(),
            Values::Double(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Append `values` (widening once when one is not an f32 exactly).
    pub fn extend(&mut self, values: &[f64]) {
        if let Values::Single(v) = self {
            let narrow: Vec<f32> = values.iter().map(|&x| x as f32).collect();
            if narrow.iter().zip(values).all(|(&n, &x)| n as f64 == x) {
                v.extend_from_slice(&narrow);
                return;
            }
            let narrow = std::mem::take(v);
            *self = Values::Double(Widened {
                narrow,
                wide: Chunked::default(),
            });
        }
        if let Values::Double(v) = self {
            v.wide.extend_from_slice(values);
        }
    }

    /// Append f32 values (exact: no widening).
    pub fn extend_f32(&mut self, values: &[f32]) {
        match self {
            Values::Single(mine) => mine.extend_from_slice(values),
            Values::Double(mine) => {
                let wide: Vec<f64> = values.iter().map(|&x| x as f64).collect();
                mine.wide.extend_from_slice(&wide);
            }
        }
    }

    /// Append another's values (widening once when one is not an f32 exactly).
    pub fn append(&mut self, other: &Values) {
        match other {
            Values::Double(v) => {
                v.narrow.chunks().for_each(|c| self.extend_f32(c));
                v.wide.chunks().for_each(|c| self.extend(c));
            }
            Values::Single(v) => v.chunks().for_each(|c| self.extend_f32(c)),
        }
    }

    /// `n` values of 1 (an f32 exactly).
    pub fn extend_ones(&mut self, n: usize) {
        self.extend_f32(&vec![1.0f32; n]);
    }

    #[inline(always)]
    pub fn get(&self, i: usize) -> f64 {
        match self {
            Values::Single(v) => v.get(i) as f64,
            Values::Double(v) => v.get(i),
        }
    }

    pub fn memory_bytes(&self) -> usize {
        match self {
            Values::Single(v) => v.memory_bytes(),
            Values::Double(v) => v.memory_bytes(),
        }
    }
}
