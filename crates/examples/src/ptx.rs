//! Reading PTX: one kernel's body, its hot loop, and what instructions the loop holds. The
//! kernel test (`tests/kernels.rs`) checks the claims written in `kernels/*.cu` with these, and
//! chapter 7's programs count what their hot loops cost per pixel-visibility pair.

/// The PTX of kernel `name`: from `.entry name(` to the brace that closes its body.
pub fn kernel_body<'a>(ptx: &'a str, name: &str) -> Option<&'a str> {
    let start = ptx.find(&format!(".entry {name}("))?;
    let body = start + ptx[start..].find('{')?;
    let mut depth = 0;
    for (i, c) in ptx[body..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 1 => return Some(&ptx[start..=body + i]),
            '}' => depth -= 1,
            _ => {}
        }
    }
    None
}

/// The names of the kernels in `ptx`, in order.
pub fn kernel_names(ptx: &str) -> Vec<&str> {
    ptx.split(".entry ")
        .skip(1)
        .filter_map(|rest| rest.split_once('(').map(|(name, _)| name.trim()))
        .collect()
}

/// The instructions of a piece of PTX: lines that end in `;` and are not directives.
fn instructions(code: &str) -> impl Iterator<Item = &str> {
    code.lines()
        .map(str::trim)
        .filter(|l| l.ends_with(';') && !l.starts_with('.') && !l.starts_with("//"))
}

/// The hot loop of a kernel body: the innermost loop (a label, straight-line code and a branch
/// back to the label, with no other label between) that reads shared memory and writes none.
/// `None` if there is no such loop, or more than one.
pub fn hot_loop(body: &str) -> Option<&str> {
    let lines: Vec<(usize, &str)> = body
        .lines()
        .scan(0, |at, l| {
            let start = *at;
            *at += l.len() + 1;
            Some((start, l))
        })
        .collect();
    let mut found = Vec::new();
    let mut label: Option<(usize, &str)> = None;
    for &(at, line) in &lines {
        let t = line.trim();
        if let Some(name) = t.strip_suffix(':') {
            label = Some((at, name));
        } else if let Some((start, name)) = label
            && t.contains("bra")
            && t.trim_end_matches(';').ends_with(name)
        {
            let code = &body[start..at + line.len()];
            if code.contains("ld.shared") && !code.contains("st.shared") {
                found.push(code);
            }
        }
    }
    match found.as_slice() {
        [one] => Some(one),
        _ => None,
    }
}

/// What a piece of PTX holds, counted by instruction.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Mix {
    /// Every instruction.
    pub all: usize,
    /// `sin.approx.f32` and `cos.approx.f32`: the special-function unit's sine and cosine.
    pub sin: usize,
    pub cos: usize,
    /// Single-precision arithmetic for the FP32 pipes: add, sub, mul, fma, neg, abs, min, max.
    pub fp32: usize,
    /// The floating-point operations of those: two for an fma, none for a neg, one otherwise.
    pub fp32_flops: usize,
    pub shared_loads: usize,
}

pub fn mix(code: &str) -> Mix {
    let mut m = Mix::default();
    for ins in instructions(code) {
        // An instruction may start with a predicate: `@%p1 bra ...`.
        let op = ins
            .trim_start_matches(['@', '!'])
            .split_whitespace()
            .find(|w| !w.starts_with('%'))
            .unwrap_or("");
        m.all += 1;
        let base = op.split('.').next().unwrap_or("");
        if op.starts_with("sin.approx.f32") {
            m.sin += 1;
        } else if op.starts_with("cos.approx.f32") {
            m.cos += 1;
        } else if op.ends_with(".f32")
            && matches!(
                base,
                "add" | "sub" | "mul" | "fma" | "neg" | "abs" | "min" | "max"
            )
        {
            m.fp32 += 1;
            m.fp32_flops += match base {
                "fma" => 2,
                "neg" => 0,
                _ => 1,
            };
        } else if op.starts_with("ld.shared") {
            m.shared_loads += 1;
        }
    }
    m
}

/// How many times `text` occurs in `code`.
pub fn occurrences(code: &str, text: &str) -> usize {
    code.matches(text).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    const PTX: &str = "
.visible .entry k(
    .param .u64 k_param_0
)
{
    .reg .f32 %f<9>;
    st.shared.f32 [%r1], %f1;
$L__BB0_1:
    ld.shared.f32 %f2, [%r2];
    mul.f32 %f3, %f2, %f1;
    sin.approx.f32 %f4, %f3;
    cos.approx.f32 %f5, %f3;
    fma.rn.f32 %f6, %f4, %f5, %f6;
    add.s32 %r2, %r2, 4;
    setp.lt.s32 %p1, %r2, 64;
    @%p1 bra $L__BB0_1;
$L__BB0_2:
    st.shared.f32 [%r1], %f6;
    ld.shared.f32 %f7, [%r3];
    @%p2 bra $L__BB0_2;
    ret;
}
";

    #[test]
    fn finds_the_hot_loop_and_counts_it() {
        let body = kernel_body(PTX, "k").unwrap();
        let hot = hot_loop(body).unwrap();
        assert!(hot.starts_with("$L__BB0_1:"));
        let m = mix(hot);
        assert_eq!(
            m,
            Mix {
                all: 8,
                sin: 1,
                cos: 1,
                fp32: 2,
                fp32_flops: 3,
                shared_loads: 1
            }
        );
        assert_eq!(kernel_names(PTX), ["k"]);
    }
}
