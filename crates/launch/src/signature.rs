//! The entry points of a kernel file: every `extern "C" __global__` function, after the
//! preprocessor (`crate::cpp`), with its parameters' C types and the Rust types a launcher
//! takes for them.

use std::collections::HashMap;

/// How a kernel may use a buffer it is given.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Access {
    /// `const T *`: it only reads.
    Read,
    /// `T *`: it may write.
    Write,
}

/// One parameter of a kernel.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub name: String,
    /// The C type without `const` and `*`, typedefs resolved: `float`, `unsigned int`, `float2`.
    pub c_type: String,
    /// `Some` for a pointer.
    pub access: Option<Access>,
}

/// One entry point.
#[derive(Clone, Debug, PartialEq)]
pub struct Kernel {
    pub name: String,
    /// `__launch_bounds__(N)`: the most threads per block it may be launched with.
    pub launch_bounds: Option<u32>,
    pub params: Vec<Param>,
    /// The text of its body, between its braces, after the preprocessor.
    pub body: String,
}

/// The Rust type of a C scalar type, or `None` when the course has no such scalar.
pub fn rust_scalar(c_type: &str) -> Option<&'static str> {
    Some(match c_type {
        "float" => "f32",
        "double" => "f64",
        "int" | "signed" | "signed int" => "i32",
        "unsigned" | "unsigned int" => "u32",
        "long long" | "long long int" | "signed long long" => "i64",
        "unsigned long long" | "unsigned long long int" => "u64",
        "char" | "signed char" => "i8",
        "unsigned char" => "u8",
        _ => return None,
    })
}

/// The trait of `course::launch` that the element type of a buffer of C vector type meets
/// (`float2` is `[f32; 2]` in some programs and cuFFT's `float2` in others), or of a type Rust
/// has no primitive for (`__nv_bfloat16` is `course::bf16::Bf16`).
pub fn rust_vector(c_type: &str) -> Option<&'static str> {
    Some(match c_type {
        "float2" => "Float2",
        "float4" => "Float4",
        "double2" => "Double2",
        "__nv_bfloat16" => "Bfloat16",
        _ => return None,
    })
}

/// The size in bytes (and so the alignment) of a CUDA vector type.
pub fn vector_bytes(c_type: &str) -> Option<u32> {
    Some(match c_type {
        "float2" => 8,
        "float4" | "double2" => 16,
        _ => return None,
    })
}

/// A Hopper tensor map (`course::tma::TensorMap`), which a kernel takes by value as
/// `const __grid_constant__ CUtensorMap`.
pub const TENSOR_MAP: &str = "CUtensorMap";

/// The kind of a PTX `.param` that a parameter of this C type compiles to: `b64` for a pointer
/// or a 64-bit integer, `b32` for a 32-bit integer, `f32`, `f64`, `b8`, and `b8[128]` for a
/// tensor map's 128 bytes.
pub fn ptx_kind(param: &Param) -> &'static str {
    if param.access.is_some() {
        return "b64";
    }
    if param.c_type == TENSOR_MAP {
        return "b8[128]";
    }
    match rust_scalar(&param.c_type) {
        Some("f32") => "f32",
        Some("f64") => "f64",
        Some("i64" | "u64") => "b64",
        Some("i8" | "u8") => "b8",
        _ => "b32",
    }
}

/// Every `extern "C" __global__` function defined in `source` (a kernel file's text), whether
/// each says `extern "C"` itself or stands in an `extern "C" { }` block. Anything between
/// `__global__` and the name other than `void` and `__launch_bounds__(...)` is an error, so that
/// no kernel is skipped unseen.
pub fn kernels(source: &str) -> Result<Vec<Kernel>, String> {
    let text = crate::cpp::preprocess(source)?;
    let typedefs = typedefs(&text);
    let blocks = extern_c_blocks(&text);
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(at) = text[from..].find("__global__") {
        let at = from + at;
        from = at + "__global__".len();
        let before = &text[..at];
        let declaration_start = before.rfind([';', '}', '{']).map_or(0, |i| i + 1);
        let in_block = blocks.iter().any(|&(open, close)| open < at && at < close);
        if !in_block && !before[declaration_start..].contains("extern \"C\"") {
            continue; // a template or a static kernel: no name a host can launch it by
        }
        let mut rest = text[from..].trim_start();
        let mut launch_bounds = None;
        let name = loop {
            if let Some(after) = rest.strip_prefix("void") {
                rest = after.trim_start();
            } else if let Some(after) = rest.strip_prefix("__launch_bounds__") {
                let (args, end) = parenthesised(after)?;
                let first = args.split(',').next().unwrap_or("").trim();
                launch_bounds = Some(first.parse().map_err(|_| {
                    format!("__launch_bounds__({args}) does not start with a number")
                })?);
                rest = after[end..].trim_start();
            } else {
                let end = rest
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(rest.len());
                let name = &rest[..end];
                rest = rest[end..].trim_start();
                break name.to_string();
            }
        };
        if name.is_empty() {
            return Err(format!(
                "a __global__ function without a name near `{}`",
                snippet(rest)
            ));
        }
        if name.starts_with("__") {
            return Err(format!(
                "`{name}` before a kernel's name: the launcher generator knows only \
                 `__launch_bounds__`, and would not know what the attribute asks of a launch"
            ));
        }
        let (list, end) = parenthesised(rest)?;
        let after = rest[end..].trim_start();
        if after.starts_with(';') {
            continue; // a declaration: the definition comes later
        }
        if !after.starts_with('{') {
            return Err(format!(
                "kernel {name}: expected its body after the parameters, found `{}`",
                snippet(after)
            ));
        }
        let params = list
            .split(',')
            .map(str::trim)
            .filter(|p| !p.is_empty() && *p != "void")
            .map(|p| param(p, &typedefs).map_err(|e| format!("kernel {name}: {e}")))
            .collect::<Result<Vec<_>, _>>()?;
        let body_start = text.len() - after.len();
        let body_end = matching_brace(&text, body_start)
            .ok_or_else(|| format!("kernel {name}: its body has no closing brace"))?;
        found.push(Kernel {
            name,
            launch_bounds,
            params,
            body: text[body_start + 1..body_end].to_string(),
        });
    }
    Ok(found)
}

/// The index of the `}` that closes the `{` at `open`.
fn matching_brace(text: &str, open: usize) -> Option<usize> {
    let mut depth = 0;
    for (i, c) in text[open..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(open + i);
                }
            }
            _ => {}
        }
    }
    None
}

/// The spans (from `{` to `}`) of every `extern "C" { ... }` block.
fn extern_c_blocks(text: &str) -> Vec<(usize, usize)> {
    let mut blocks = Vec::new();
    let mut from = 0;
    while let Some(at) = text[from..].find("extern \"C\"") {
        let after = from + at + "extern \"C\"".len();
        from = after;
        let rest = &text[after..];
        if rest.trim_start().starts_with('{') {
            let open = after + (rest.len() - rest.trim_start().len());
            if let Some(close) = matching_brace(text, open) {
                blocks.push((open, close));
            }
        }
    }
    blocks
}

fn snippet(text: &str) -> &str {
    &text[..text.len().min(40)]
}

/// `typedef unsigned long long u64;` as `u64` → `unsigned long long`.
fn typedefs(text: &str) -> HashMap<String, String> {
    let mut map = HashMap::new();
    for statement in text.split(';') {
        let Some(def) = statement.trim().strip_prefix("typedef ") else {
            continue;
        };
        let words: Vec<&str> = def.split_whitespace().collect();
        if let Some((name, ty)) = words.split_last() {
            map.insert(name.to_string(), ty.join(" "));
        }
    }
    map
}

/// The text inside the parentheses that `text` starts with, and the index after them.
fn parenthesised(text: &str) -> Result<(&str, usize), String> {
    let text_start = text.trim_start();
    let offset = text.len() - text_start.len();
    if !text_start.starts_with('(') {
        return Err(format!("expected `(` at `{}`", snippet(text_start)));
    }
    let mut depth = 0;
    for (i, c) in text_start.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return Ok((&text_start[1..i], offset + i + 1));
                }
            }
            _ => {}
        }
    }
    Err(format!(
        "unbalanced parentheses at `{}`",
        snippet(text_start)
    ))
}

fn param(text: &str, typedefs: &HashMap<String, String>) -> Result<Param, String> {
    let spaced = text.replace('*', " * ");
    let grid_constant = spaced.split_whitespace().any(|w| w == "__grid_constant__");
    let words: Vec<&str> = spaced
        .split_whitespace()
        .filter(|w| !matches!(*w, "__restrict__" | "__restrict" | "__grid_constant__"))
        .collect();
    let Some((name, ty)) = words.split_last() else {
        return Err(format!("cannot read the parameter `{text}`"));
    };
    let pointers = ty.iter().filter(|w| **w == "*").count();
    if pointers > 1 {
        return Err(format!(
            "`{text}`: a pointer to a pointer has no launcher type"
        ));
    }
    let star = ty.iter().position(|w| *w == "*");
    let is_const = ty[..star.unwrap_or(ty.len())].contains(&"const");
    let base: Vec<&str> = ty
        .iter()
        .filter(|w| !matches!(**w, "*" | "const"))
        .copied()
        .collect();
    let base = base.join(" ");
    let c_type = typedefs.get(&base).cloned().unwrap_or(base);
    let access = star.map(|_| {
        if is_const {
            Access::Read
        } else {
            Access::Write
        }
    });
    if c_type == TENSOR_MAP || grid_constant {
        if c_type != TENSOR_MAP || access.is_some() || !is_const || !grid_constant {
            return Err(format!(
                "`{text}`: the launchers take a tensor map as `const __grid_constant__ \
                 CUtensorMap name` (by value, read in place by the TMA), and nothing else as \
                 `__grid_constant__`"
            ));
        }
    }
    let known = c_type == TENSOR_MAP
        || rust_scalar(&c_type).is_some()
        || (access.is_some() && rust_vector(&c_type).is_some());
    if !known {
        return Err(format!(
            "`{text}`: the launchers know no Rust type for `{c_type}`"
        ));
    }
    Ok(Param {
        name: name.to_string(),
        c_type,
        access,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_with_bounds_typedefs_and_macros() {
        let src = "typedef unsigned long long u64;\n\
                   #define THREADS 256\n\
                   template <int K> __global__ void hidden(float *x) {}\n\
                   extern \"C\" __global__ void __launch_bounds__(THREADS)\n\
                   scale(const float *__restrict__ x, float *y, long long n, u64 *count)\n{ }\n\
                   extern \"C\" __global__ void plain(const float2 *v, float s) { }\n";
        let ks = kernels(src).unwrap();
        assert_eq!(ks.len(), 2);
        assert_eq!(ks[0].name, "scale");
        assert_eq!(ks[0].launch_bounds, Some(256));
        let types: Vec<_> = ks[0]
            .params
            .iter()
            .map(|p| (p.c_type.as_str(), p.access))
            .collect();
        assert_eq!(
            types,
            [
                ("float", Some(Access::Read)),
                ("float", Some(Access::Write)),
                ("long long", None),
                ("unsigned long long", Some(Access::Write))
            ]
        );
        assert_eq!(ks[1].params[0].c_type, "float2");
        assert_eq!(ptx_kind(&ks[0].params[2]), "b64");
        assert_eq!(ptx_kind(&ks[1].params[1]), "f32");
    }

    #[test]
    fn unknown_types_are_named() {
        let e = kernels("extern \"C\" __global__ void k(half *h) {}").unwrap_err();
        assert!(e.contains("half"), "{e}");
    }

    /// Every kernel file of the course (or of a chapter's fork) reads, and names its kernels
    /// once each.
    #[test]
    fn every_kernel_file_reads() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../kernels");
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "cu") {
                let source = std::fs::read_to_string(&path).unwrap();
                let ks = kernels(&source).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                let mut names: Vec<_> = ks.iter().map(|k| &k.name).collect();
                names.sort();
                names.dedup();
                assert_eq!(names.len(), ks.len(), "{}", path.display());
            }
        }
    }

    /// Every kernel of an `extern "C" { }` block is found, not only the first.
    #[test]
    fn kernels_in_an_extern_c_block() {
        let ks = kernels(
            "extern \"C\" {\n__global__ void first(int *x) { }\n\
             __global__ void second(const float *y, int n) { if (n) { } }\n}\n",
        )
        .unwrap();
        let names: Vec<_> = ks.iter().map(|k| k.name.as_str()).collect();
        assert_eq!(names, ["first", "second"]);
        assert_eq!(ks[1].body.trim(), "if (n) { }");
    }

    /// An attribute the generator does not know stops it, instead of hiding the kernel.
    #[test]
    fn an_unknown_attribute_is_an_error() {
        let e =
            kernels("extern \"C\" __global__ void __cluster_dims__(2, 1, 1) pairs(int *x) { }\n")
                .unwrap_err();
        assert!(e.contains("`__cluster_dims__`"), "{e}");
    }
}
