//! `kernels!("FILE.cu")`: typed launchers for the entry points of `kernels/FILE.cu`, generated
//! from their signatures when the program that asks for them is compiled.
//!
//! ```text
//! mod streams { course::kernels!("ch03-streams.cu"); }
//!
//! let k = streams::Kernels::load(&module);
//! unsafe { k.polish(&stream, config, &mut x, n, rounds) }
//! ```
//!
//! `Kernels` holds one `CudaFunction` per entry point, found by name in the module, and one
//! method per entry point whose parameters follow the kernel's: a `const T *` takes a shared
//! borrow of a device buffer of `T` (`course::launch::In<T>`), a `T *` an exclusive borrow
//! (`course::launch::Out<T>`), a scalar its exact Rust type. A wrong count or type, a read-only
//! buffer passed where the kernel writes, a host slice, or one buffer passed as both input and
//! output is a compile error. The expansion includes the file with `include_str!`, so editing
//! a kernel rebuilds the programs that use it, and only those. A name with a `/`
//! (`kernels!("tests/contracts/clusters.cu")`) is a file of the crate that expands the macro,
//! relative to its directory: a test's own kernel, which no program of the course uses.
//!
//! A kernel whose contract says `clusters` gets a launcher that takes a
//! `course::launch::ClusterConfig` and launches through `course::launch::launch_clustered`.

mod contract;
mod cpp;
mod signature;

use proc_macro::TokenStream;
use signature::{Access, Kernel, rust_scalar, rust_vector};

/// Where the kernel files are: fixed when this crate is built.
const KERNELS_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../kernels");

/// Typed launchers for the kernels of one file of `kernels/`: see the crate's documentation.
#[proc_macro]
pub fn kernels(input: TokenStream) -> TokenStream {
    expansion(file_name(&input).and_then(|file| generate(&file)))
}

/// The generated code, or a `compile_error!` with the message that says why there is none.
fn expansion(code: Result<String, String>) -> TokenStream {
    let error = |message: String| format!("::core::compile_error!({message:?});");
    code.unwrap_or_else(error).parse().unwrap_or_else(|e| {
        error(format!("launch: {e}"))
            .parse()
            .expect("a compile_error! call parses")
    })
}

/// `all_kernels!()`: a module of launchers for every file of `kernels/`, named after the file
/// (`ch03-streams.cu` in `ch03_streams`), and `FILES`, for each file its name, its entry points
/// and their PTX parameter kinds: what the kernel test compares with NVRTC's PTX. A file added
/// to `kernels/` appears after the crate that expands this is built again.
#[proc_macro]
pub fn all_kernels(_input: TokenStream) -> TokenStream {
    expansion(every_file())
}

fn every_file() -> Result<String, String> {
    let mut files: Vec<String> = std::fs::read_dir(KERNELS_DIR)
        .map_err(|e| format!("cannot list kernels/: {e}"))?
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|f| f.ends_with(".cu"))
        .collect();
    files.sort();
    let mut code = String::new();
    let mut list = Vec::new();
    for file in &files {
        let module = file.trim_end_matches(".cu").replace(['-', '.'], "_");
        code.push_str(&format!("pub mod {module} {{\n{}}}\n", generate(file)?));
        list.push(format!(
            "({file:?}, {module}::NAMES, {module}::PTX_PARAMS, {module}::VECTOR_ALIGN, {module}::SAFE)"
        ));
    }
    code.push_str(&format!(
        "/// (file, entry points, PTX parameter kinds per entry point, the widest vector access\n\
         /// each may make of its buffers, whether its launcher is safe), one per kernel file.\n\
         pub const FILES: &[(&str, &[&str], &[&[&str]], &[u32], &[bool])] = &[{}];\n",
        list.join(", ")
    ));
    Ok(code)
}

fn file_name(input: &TokenStream) -> Result<String, String> {
    let text = input.to_string();
    let name = text
        .trim()
        .strip_prefix('"')
        .and_then(|t| t.strip_suffix('"'))
        .ok_or_else(|| format!("kernels! takes the name of a file of kernels/, such as \"ch03-streams.cu\", not `{text}`"))?;
    let outside = name.starts_with('/') || name.split('/').any(|part| part == "..");
    if name.contains('\\') || outside || !name.ends_with(".cu") {
        return Err(format!(
            "`{name}` is not the name of a .cu file in kernels/, nor a path to one inside the crate"
        ));
    }
    Ok(name.to_string())
}

/// The launchers of `file`: a file of `kernels/`, or, a path with a `/`, a file of the crate
/// that expands the macro, relative to its `Cargo.toml` (a test's own kernels).
fn generate(file: &str) -> Result<String, String> {
    let (shown, path) = match file.contains('/') {
        false => (format!("kernels/{file}"), format!("{KERNELS_DIR}/{file}")),
        true => {
            let dir = std::env::var("CARGO_MANIFEST_DIR")
                .map_err(|_| format!("`{file}`: no crate directory to find it in"))?;
            (file.to_string(), format!("{dir}/{file}"))
        }
    };
    let source = std::fs::read_to_string(&path).map_err(|e| format!("cannot read {shown}: {e}"))?;
    generate_from(&shown, &path, &source)
}

/// The launchers of `source`, the text of `file` (`kernels/NAME.cu`, as messages name it), found
/// at `path`.
fn generate_from(file: &str, path: &str, source: &str) -> Result<String, String> {
    let kernels = signature::kernels(source).map_err(|e| format!("{file}: {e}"))?;
    let written = contract::written(source).map_err(|e| format!("{file}: {e}"))?;
    for w in &written {
        let prefix = w.pattern.trim_end_matches('*');
        let exact = !w.pattern.ends_with('*');
        if !kernels.iter().any(|k| {
            if exact {
                k.name == w.pattern
            } else {
                k.name.starts_with(prefix)
            }
        }) {
            return Err(format!(
                "{file}: `// launch {}:` names no kernel of the file",
                w.pattern
            ));
        }
    }
    // Kernels with the same parameters and contract share one launcher type, named after the
    // first of them, so that a program can choose among them at run time.
    let mut types: Vec<(String, String, Vec<&Kernel>)> = Vec::new(); // (key, type, kernels)
    let mut contracts = Vec::new();
    for k in &kernels {
        let clauses = contract::for_kernel(&written, &k.name)
            .map(|text| cpp::expand_with_macros_of(source, &text))
            .transpose()
            .map_err(|e| format!("{file}: {e}"))?;
        let key = format!(
            "{}|{}",
            c_signature_params(k),
            clauses.clone().unwrap_or_default()
        );
        contracts.push(clauses);
        match types.iter_mut().find(|(kk, _, _)| *kk == key) {
            Some((_, _, members)) => members.push(k),
            None => types.push((key, camel(&k.name), vec![k])),
        }
    }
    // A launcher borrows a tensor map's buffer to read it. A file that can also store or reduce
    // through a map (in any function: the copies sit in helpers) makes its launchers unsafe.
    let writes_through_maps = source.contains("cp.reduce.async.bulk.tensor")
        || source
            .lines()
            .any(|l| l.contains("cp.async.bulk.tensor") && l.contains(".global.shared"));
    for (k, clauses) in kernels.iter().zip(&contracts) {
        let takes_map = k.params.iter().any(|p| p.c_type == signature::TENSOR_MAP);
        let safe = clauses
            .as_deref()
            .is_some_and(|t| !t.split(';').any(|c| c.trim().starts_with("unsafe:")));
        if takes_map && safe && writes_through_maps {
            return Err(format!(
                "{file}: {} takes a tensor map, and the file stores through one \
                 (`cp.async.bulk.tensor` to global memory, or `cp.reduce.async.bulk.tensor`): its \
                 launcher borrows the map's buffer only to read, so its contract needs an \
                 `unsafe:` clause",
                k.name
            ));
        }
    }
    let mut fields = String::new();
    let mut loads = String::new();
    let mut items = String::new();
    let mut lookups = String::new();
    for (_, ty, members) in &types {
        let first = members[0];
        let at = kernels
            .iter()
            .position(|k| k.name == first.name)
            .unwrap_or(0);
        let clauses = match &contracts[at] {
            Some(text) => Some(
                contract::parse(text, first)
                    .map_err(|e| format!("{file}, the contract of {}: {e}", first.name))?,
            ),
            None => None,
        };
        for k in members {
            let says_shared = clauses.as_deref().unwrap_or(&[]).iter().any(
                |c| matches!(c, contract::Clause::Check { text, .. } if text.starts_with("shared")),
            );
            if clauses.is_some() && k.body.contains("extern __shared__") && !says_shared {
                return Err(format!(
                    "{file}: {} uses `extern __shared__` but its contract has no \
                     `shared >= ...` clause",
                    k.name
                ));
            }
        }
        items.push_str(&launcher_type(
            ty,
            members,
            file,
            clauses.as_deref(),
            contracts[at].as_deref(),
        ));
        for k in members {
            fields.push_str(&format!(
                "    /// `{}` of `{file}`.\n    pub {}: {ty},\n",
                k.name, k.name
            ));
            loads.push_str(&format!(
                "            {0}: {ty}::new(::course::kernel::function(module, {0:?}), {0:?}),\n",
                k.name
            ));
        }
        if members.len() > 1 {
            let names: Vec<String> = members.iter().map(|k| format!("`{}`", k.name)).collect();
            let arms: Vec<String> = members
                .iter()
                .map(|k| format!("{0:?} => Some(&self.{0}),", k.name))
                .collect();
            lookups.push_str(&format!(
                "    /// The kernel called `name` among those launched like `{first}` ({names}).\n\
                 pub fn like_{first}(&self, name: &str) -> Option<&{ty}> {{\n\
                     match name {{ {arms} _ => None }}\n\
                 }}\n",
                first = first.name,
                names = names.join(", "),
                arms = arms.join(" "),
            ));
        }
    }
    let names: Vec<String> = kernels.iter().map(|k| format!("{:?}", k.name)).collect();
    let safe: Vec<String> = contracts
        .iter()
        .map(|text| {
            let unsafe_clause = text
                .as_deref()
                .is_some_and(|t| t.split(';').any(|c| c.trim().starts_with("unsafe:")));
            (text.is_some() && !unsafe_clause).to_string()
        })
        .collect();
    let vector_align: Vec<String> = kernels
        .iter()
        .zip(&contracts)
        .map(|(k, text)| match text {
            None => u32::MAX, // an unsafe launcher: the caller answers for alignment
            Some(text) => {
                let checked = contract::parse(text, k)
                    .unwrap_or_default()
                    .iter()
                    .filter_map(|c| match c {
                        contract::Clause::Aligned { bytes, .. }
                        | contract::Clause::AlignsItself { bytes, .. } => Some(*bytes),
                        _ => None,
                    })
                    .min();
                let typed = k
                    .params
                    .iter()
                    .filter(|p| p.access.is_some())
                    .filter_map(|p| signature::vector_bytes(&p.c_type))
                    .max();
                checked.max(typed).unwrap_or(0)
            }
        })
        .map(|a| a.to_string())
        .collect();
    let kinds: Vec<String> = kernels
        .iter()
        .map(|k| {
            let kinds: Vec<String> = k
                .params
                .iter()
                .map(|p| format!("{:?}", signature::ptx_kind(p)))
                .collect();
            format!("&[{}]", kinds.join(", "))
        })
        .collect();
    Ok(format!(
        "const _: &str = include_str!({path:?});\n\
         /// The names of the entry points, in the file's order (for the test that compares them\n\
         /// with the PTX's `.entry` names).\n\
         #[allow(dead_code)]\n\
         pub const NAMES: &[&str] = &[{names}];\n\
         /// Per entry point, the kind of PTX `.param` each argument compiles to: `b64` for a\n\
         /// pointer or a 64-bit integer, `b32`, `b8`, `f32` or `f64`.\n\
         #[allow(dead_code)]\n\
         pub const PTX_PARAMS: &[&[&str]] = &[{kinds}];\n\
         /// Per entry point, the widest vector load or store of global memory that is sound for\n\
         /// it, in bytes: what its contract's `aligned` clauses check, or the size of its buffers'\n\
         /// CUDA vector types (`u32::MAX` for an `unsafe` launcher). The kernel test compares it\n\
         /// with the PTX.\n\
         #[allow(dead_code)]\n\
         pub const VECTOR_ALIGN: &[u32] = &[{vector_align}];\n\
         /// Per entry point, whether its launcher is safe: it has a contract, and no clause\n\
         /// makes it `unsafe`.\n\
         #[allow(dead_code)]\n\
         pub const SAFE: &[bool] = &[{safe}];\n\
         /// The entry points of `{file}`, found in a module compiled from it.\n\
         #[allow(non_snake_case, dead_code)]\n\
         pub struct Kernels {{\n{fields}}}\n\
         #[allow(non_snake_case, dead_code)]\n\
         impl Kernels {{\n\
             /// Every entry point of the file, by name; a program stops with one sentence if\n\
             /// the module lacks one.\n\
             pub fn load(module: &::std::sync::Arc<::cudarc::driver::CudaModule>) -> Self {{\n\
                 Kernels {{\n{loads}        }}\n\
             }}\n\
         {lookups}}}\n\
         {items}",
        names = names.join(", "),
        kinds = kinds.join(", "),
        vector_align = vector_align.join(", "),
        safe = safe.join(", "),
    ))
}

/// `image_coarse_4_64` as `ImageCoarse4_64`.
fn camel(name: &str) -> String {
    let mut out = String::new();
    let mut upper = true;
    for c in name.chars() {
        if c == '_' {
            if out.ends_with(|d: char| d.is_ascii_digit()) {
                out.push('_');
            }
            upper = true;
        } else if upper {
            out.push(c.to_ascii_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

fn c_signature_params(k: &Kernel) -> String {
    let sig = c_signature(k);
    sig[sig.find('(').unwrap_or(0)..].to_string()
}

/// The C signature as the file declares it, for the launcher's documentation.
fn c_signature(k: &Kernel) -> String {
    let params: Vec<String> = k
        .params
        .iter()
        .map(|p| match p.access {
            Some(Access::Read) => format!("const {} *{}", p.c_type, p.name),
            Some(Access::Write) => format!("{} *{}", p.c_type, p.name),
            None if p.c_type == signature::TENSOR_MAP => {
                format!("const __grid_constant__ {} {}", p.c_type, p.name)
            }
            None => format!("{} {}", p.c_type, p.name),
        })
        .collect();
    format!("{}({})", k.name, params.join(", "))
}

fn launcher_type(
    ty: &str,
    members: &[&Kernel],
    file: &str,
    clauses: Option<&[contract::Clause]>,
    written: Option<&str>,
) -> String {
    use contract::Clause;
    let k = members[0];
    let clauses = clauses.unwrap_or(&[]);
    let derived: Vec<&str> = clauses
        .iter()
        .filter_map(|c| match c {
            Clause::Derive { param, .. } => Some(param.as_str()),
            _ => None,
        })
        .collect();
    let mut generics = Vec::new();
    let mut params = Vec::new();
    let mut pushes = Vec::new();
    // The pure check's parameters and the launcher's arguments to it.
    let mut check_params = Vec::new();
    let mut check_args = Vec::new();
    let mut contexts = Vec::new();
    // A clustered launch's arguments: each buffer's device pointer and the guard that records
    // its event after the launch, then the address of every argument, in order.
    let mut pointers = Vec::new();
    let mut addresses = Vec::new();
    for (i, p) in k.params.iter().enumerate() {
        let name = format!("{}_", p.name); // never a Rust keyword (`ref`, `type`, `in`...)
        let element = match rust_vector(&p.c_type) {
            Some(bound) => {
                generics.push(format!("E{i}: ::course::launch::{bound}"));
                format!("E{i}")
            }
            None => rust_scalar(&p.c_type).unwrap_or("()").to_string(),
        };
        let trait_ = match p.access {
            Some(Access::Read) => "In",
            Some(Access::Write) => "Out",
            None => "",
        };
        match p.access {
            Some(access) => {
                let (borrow, push) = match access {
                    Access::Read => ("&'a", "push_in"),
                    Access::Write => ("&'a mut", "push_out"),
                };
                params.push(format!(
                    "{name}: {borrow} impl ::course::launch::{trait_}<{element}>"
                ));
                pushes.push(format!(
                    "::course::launch::{trait_}::{push}({name}, &mut args);"
                ));
                pointers.push(format!(
                    "let {name} = ::course::launch::{trait_}::device_ptr_{}({name}, stream);",
                    if access == Access::Read { "in" } else { "out" }
                ));
                addresses.push(format!("::course::launch::param(&{name}.0)"));
                check_params.push(format!("{name}: ::course::launch::Span"));
                let needs_address = clauses
                    .iter()
                    .any(|c| matches!(c, Clause::Aligned { buffer, .. } if *buffer == p.name));
                check_args.push(match needs_address {
                    true => format!("::course::launch::{trait_}::span({name}, stream)"),
                    false => format!(
                        "::course::launch::Span::of_len(::course::launch::{trait_}::len({name}))"
                    ),
                });
                contexts.push(format!(
                    "::course::launch::same_context(self.name, {:?}, \
                     ::course::launch::{trait_}::context({name}), stream)?;",
                    p.name
                ));
            }
            None if p.c_type == signature::TENSOR_MAP => {
                // The map borrows its buffer; the guard makes the launch wait for the buffer's
                // last write and records this read after it, as a buffer argument's does.
                generics.push(format!("E{i}: ::course::tma::TmaElement"));
                params.push(format!("{name}: &'a ::course::tma::TensorMap<'a, E{i}>"));
                let hold = format!("let _{name}held = {name}.hold(stream);");
                pushes.push(format!("{hold}\nargs.arg({name}.raw());"));
                pointers.push(hold);
                addresses.push(format!("::course::launch::param({name}.raw())"));
                contexts.push(format!(
                    "::course::launch::same_context(self.name, {:?}, \
                     ::course::launch::In::context({name}.buffer()), stream)?;",
                    p.name
                ));
            }
            None => {
                if !derived.contains(&p.name.as_str()) {
                    params.push(format!("{name}: {element}"));
                    check_params.push(format!("{name}: {element}"));
                    check_args.push(name.clone());
                }
                pushes.push(format!("args.arg(&{name});"));
                addresses.push(format!("::course::launch::param(&{name})"));
            }
        }
    }
    let cooperative = clauses.contains(&Clause::Cooperative);
    let clustered = clauses.contains(&Clause::Clusters);
    let config_ty = match clustered {
        true => "::course::launch::ClusterConfig",
        false => "::cudarc::driver::LaunchConfig",
    };
    let mut checks = Vec::new();
    let mut derived_types = Vec::new();
    let mut zeroed = Vec::new();
    let mut reasons = Vec::new();
    for c in clauses {
        match c {
            Clause::Derive { param, value } => {
                let p = k.params.iter().find(|p| p.name == *param);
                let ty = p.and_then(|p| rust_scalar(&p.c_type)).unwrap_or("i32");
                derived_types.push(ty);
                checks.push(format!(
                    "let {param}_: {ty} = ::course::launch::derive(name, {param:?}, {})?;",
                    contract::rust(value)
                ));
            }
            Clause::Cooperative
            | Clause::Clusters
            | Clause::Index64
            | Clause::AlignsItself { .. } => {}
            Clause::Check {
                left,
                op,
                right,
                text,
            } => checks.push(format!(
                "::course::launch::check(name, {text:?}, {}, {op:?}, {})?;",
                contract::rust(left),
                contract::rust(right)
            )),
            Clause::Aligned {
                buffer,
                bytes,
                text,
            } => checks.push(format!(
                "::course::launch::aligned(name, {text:?}, {buffer}_.address, {bytes})?;"
            )),
            Clause::Zeroed(buffers) => {
                for b in buffers {
                    zeroed.push(format!("::course::launch::Out::zero({b}_, stream)?;"));
                }
            }
            Clause::Unsafe(reason) => reasons.push(reason.clone()),
        }
    }
    let derived_list = derived
        .iter()
        .map(|d| format!("{d}_"))
        .collect::<Vec<_>>()
        .join(", ");
    let generics = if generics.is_empty() {
        String::new()
    } else {
        format!(", {}", generics.join(", "))
    };
    let names: Vec<String> = members.iter().map(|k| format!("`{}`", k.name)).collect();
    let (unsafety, doc, safety) = match written {
        Some(text) if reasons.is_empty() => (
            "",
            format!(
                "    /// Launches the kernel on `stream` after checking its contract, as\n\
                 /// `{file}` states it: `{text}`, and the invariants every launch\n\
                 /// gets (see [`Self::contract`]); a launch that breaks one is refused with\n\
                 /// [`::course::launch::LaunchError::Broken`]. A block larger than the kernel's\n\
                 /// `__launch_bounds__`, or more dynamic shared memory than its limit, the driver\n\
                 /// refuses ([`::course::launch::LaunchError::Driver`]) before anything runs.\n"
            ),
            "// SAFETY: the argument types are the kernel's, and the contract under which it\n\
             // stays inside its buffers was checked above.",
        ),
        Some(text) => (
            "unsafe ",
            format!(
                "    /// Launches the kernel on `stream` after checking its contract, as\n\
                 /// `{file}` states it: `{text}`.\n\
                 ///\n\
                 /// # Safety\n\
                 /// The contract is checked, but where the kernel writes also depends on what\n\
                 /// a buffer holds, which no check before the launch can see: {}.\n",
                reasons.join("; ")
            ),
            "// SAFETY: the argument types are the kernel's, the contract was checked above, and\n\
             // the caller keeps what the safety section says.",
        ),
        None => (
            "unsafe ",
            "    /// Launches the kernel on `stream`.\n\
             ///\n\
             /// # Safety\n\
             /// The types are the kernel's, but the kernel file states no contract for it: the\n\
             /// caller must make the grid and every length or size argument agree with the\n\
             /// buffers' lengths, so that no thread reads or writes outside them.\n"
                .to_string(),
            "// SAFETY: the argument types are the kernel's; the caller keeps the contract above.",
        ),
    };
    let contract_fn = match written {
        Some(text) => format!(
            "    /// The contract of `{file}` alone, on the launch's shape, the buffers'\n\
             /// lengths and addresses and the scalar arguments, without a GPU: `{text}`, then the\n\
             /// invariants every launch gets (unused axes 1; 32-bit indices that cannot\n\
             /// overflow, unless `index64`; whole clusters of at most 16 blocks, with\n\
             /// `clusters`). It returns the derived scalars, or the clause a launch breaks;\n\
             /// `launch` calls it first.\n\
             pub fn contract(\n\
                 name: &'static str,\n\
                 config: &{config_ty},\n\
                 {check_params}\n\
             ) -> ::std::result::Result<({derived_tys}), ::course::launch::LaunchError> {{\n\
                 {checks}\n\
                 Ok(({derived_list}{comma}))\n\
             }}\n",
            check_params = check_params.join(",\n"),
            derived_tys = derived_types
                .iter()
                .map(|t| format!("{t},"))
                .collect::<String>(),
            checks = checks.join("\n"),
            comma = if derived.len() == 1 { "," } else { "" },
        ),
        None => String::new(),
    };
    let run_contract = match written {
        Some(_) => format!(
            "let ({derived_list}{comma}) = Self::contract(self.name, &config, {args})?;\n\
             {contexts}\n\
             {zeroed}",
            comma = if derived.len() == 1 { "," } else { "" },
            args = check_args.join(", "),
            contexts = contexts.join("\n"),
            zeroed = zeroed.join("\n"),
        ),
        None => contexts.join("\n"),
    };
    let call = match clustered {
        false => format!(
            "use ::cudarc::driver::PushKernelArg as _;\n\
             let mut args = stream.launch_builder(&self.function);\n\
             {pushes}\n\
             {safety}\n\
             unsafe {{ args.{launch}(config) }}.map(|_| ()).map_err(Into::into)",
            launch = if cooperative {
                "launch_cooperative"
            } else {
                "launch"
            },
            pushes = pushes.join("\n"),
        ),
        // The buffers' guards live until the function returns, after the launch, as cudarc's
        // own launch records the buffers' events after it.
        true => format!(
            "{pointers}\n\
             let params = ::std::vec![{addresses}];\n\
             {safety}\n\
             unsafe {{ ::course::launch::launch_clustered(&self.function, stream, &config, params) }}",
            pointers = pointers.join("\n"),
            addresses = addresses.join(", "),
        ),
    };
    let cluster_doc = match clustered {
        true => {
            "/// Its blocks run in thread-block clusters of `config.cluster_dim` (compute capability\n\
                 /// 9.0); the driver refuses a cluster of more than 8 blocks unless\n\
                 /// [`::course::launch::allow_non_portable_clusters`] allowed it.\n"
        }
        false => "",
    };
    format!(
        "/// The launcher of {names} of `{file}`: `{sig}`.\n\
         {cluster_doc}\
         #[allow(non_camel_case_types, dead_code)]\n\
         pub struct {ty} {{\n\
             /// The entry point, for what the launcher does not do (occupancy, attributes).\n\
             pub function: ::cudarc::driver::CudaFunction,\n\
             /// Its name, for messages.\n\
             pub name: &'static str,\n\
         }}\n\
         #[allow(dead_code, clippy::too_many_arguments, unused_parens)]\n\
         impl {ty} {{\n\
             fn new(function: ::cudarc::driver::CudaFunction, name: &'static str) -> Self {{\n\
                 {ty} {{ function, name }}\n\
             }}\n\
         {contract_fn}\
         {doc}\
             pub {unsafety}fn launch<'a{generics}>(\n\
                 &'a self,\n\
                 stream: &'a ::cudarc::driver::CudaStream,\n\
                 config: {config_ty},\n\
                 {params}\n\
             ) -> ::std::result::Result<(), ::course::launch::LaunchError> {{\n\
                 {run_contract}\n\
                 {call}\n\
             }}\n\
         }}\n\
         impl ::course::launch::Launcher for {ty} {{\n\
             fn function(&self) -> &::cudarc::driver::CudaFunction {{ &self.function }}\n\
         }}\n",
        names = names.join(", "),
        sig = c_signature(k),
        params = params.join(",\n"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A kernel file as the course writes them: one kernel with a contract, one without.
    const FILE: &str = "// launch adder: n = len(xs) = len(ys) = len(zs); threads.x >= n\n\
        // launch adder: threads.x <= 2147483648\n\
        extern \"C\" __global__ void adder(const double *xs, const double *ys, double *zs, int n)\n\
        { }\n\
        extern \"C\" __global__ void squares_off_by_one(int *out, int n) { }\n";

    /// A kernel with a contract gets a safe launcher that derives its length and checks the
    /// rest; one without gets an `unsafe` launcher that checks nothing.
    #[test]
    fn contracts_make_launchers_safe() {
        let code = generate_from("test.cu", "test.cu", FILE).unwrap();
        let adder = &code[code.find("pub struct Adder").unwrap()..];
        let off_by_one = &code[code.find("pub struct SquaresOffByOne").unwrap()..];
        let adder = &adder[..adder
            .find("pub struct SquaresOffByOne")
            .unwrap_or(adder.len())];
        assert!(adder.contains("pub fn launch<'a>"), "{adder}");
        assert!(
            !adder.contains("n_: i32,"),
            "n is derived, not passed: {adder}"
        );
        assert!(adder.contains("::course::launch::derive(name, \"n\", (xs_.len as u128))?"));
        assert!(adder.contains("pub fn contract("), "{adder}");
        for clause in [
            "n = len(ys)",
            "n = len(zs)",
            "threads.x >= n",
            "threads.x <= 2147483648",
        ] {
            assert!(
                adder.contains(&format!("{clause:?}")),
                "no check of {clause}: {adder}"
            );
        }
        assert!(off_by_one.contains("pub unsafe fn launch"), "{off_by_one}");
        assert!(
            !off_by_one.contains("::course::launch::check("),
            "{off_by_one}"
        );
    }

    /// Every kernel file of the course generates, whatever its contracts say.
    #[test]
    fn every_kernel_file_generates() {
        every_file().unwrap_or_else(|e| panic!("{e}"));
    }

    /// A parameter derived twice, or a kernel with `extern __shared__` and no `shared`
    /// clause, is a compile error with a sentence saying so.
    #[test]
    fn unsound_contracts_are_compile_errors() {
        let twice = "// launch pass: n = len(keys_in) = len(keys_out); n = len(values_in)\n\
            extern \"C\" __global__ void pass(const unsigned *keys_in, unsigned *keys_out,\n\
            const unsigned *values_in, int n) { }\n";
        let e = generate_from("t.cu", "t.cu", twice).unwrap_err();
        assert!(e.contains("derives `n` a second time"), "{e}");
        let shared = "// launch tiles: n = len(x); threads >= n\n\
            extern \"C\" __global__ void tiles(float *x, int n) { extern __shared__ float t[]; }\n";
        let e = generate_from("t.cu", "t.cu", shared).unwrap_err();
        assert!(e.contains("no `shared >= ...` clause"), "{e}");
    }

    /// A `clusters` contract: the launcher takes a `ClusterConfig`, marshals its arguments for
    /// the runtime's clustered launch, and the contract gets the clusters' invariants.
    #[test]
    fn clustered_contracts_launch_through_the_cluster_marshaller() {
        let file = "// launch bins: clusters; n = len(x); threads >= n; bins = len(counts)\n\
            // launch bins: shared >= 4 * ((bins + cluster - 1) / cluster)\n\
            extern \"C\" __global__ void bins(const unsigned *x, unsigned *counts, int n, int bins)\n\
            { extern __shared__ unsigned part[]; }\n";
        let code = generate_from("t.cu", "t.cu", file).unwrap();
        for text in [
            "config: &::course::launch::ClusterConfig,",
            "config: ::course::launch::ClusterConfig,",
            "let x_ = ::course::launch::In::device_ptr_in(x_, stream);",
            "let counts_ = ::course::launch::Out::device_ptr_out(counts_, stream);",
            "::std::vec![::course::launch::param(&x_.0), ::course::launch::param(&counts_.0), \
             ::course::launch::param(&n_), ::course::launch::param(&bins_)]",
            "::course::launch::launch_clustered(&self.function, stream, &config, params)",
            "::course::launch::shape(config, \"cluster\")",
            "\"grid.x % cluster.x = 0 (whole clusters)\"",
            "\"cluster <= 16 (the largest cluster)\"",
        ] {
            assert!(code.contains(text), "no `{text}` in {code}");
        }
        assert!(!code.contains("launch_builder"), "{code}");
        let plain = generate_from("test.cu", "test.cu", FILE).unwrap();
        assert!(!plain.contains("ClusterConfig") && !plain.contains("launch_clustered"));
    }

    /// A tensor map is taken by value as `const __grid_constant__ CUtensorMap`, becomes a
    /// borrowed `course::tma::TensorMap` whose buffer's events the launch keeps, and is 128
    /// bytes in the PTX; a file that can store through a map gets no safe launcher.
    #[test]
    fn tensor_maps_are_borrowed_and_read_only() {
        let file = "// launch tiles: len(c) = n\n\
            extern \"C\" __global__ void tiles(const __grid_constant__ CUtensorMap a_map, float *c, int n)\n\
            { }\n";
        let code = generate_from("t.cu", "t.cu", file).unwrap();
        for text in [
            "a_map_: &'a ::course::tma::TensorMap<'a, E0>",
            "E0: ::course::tma::TmaElement",
            "let _a_map_held = a_map_.hold(stream);",
            "args.arg(a_map_.raw());",
            "::course::launch::In::context(a_map_.buffer())",
            "pub fn launch<'a, E0: ::course::tma::TmaElement>",
        ] {
            assert!(code.contains(text), "no `{text}` in {code}");
        }
        assert!(code.contains("&[\"b8[128]\", \"b64\", \"b32\"]"), "{code}");
        let storing = format!(
            "{file}__device__ void put() {{ asm(\"cp.async.bulk.tensor.2d.global.shared::cta.tile [%0];\"); }}\n"
        );
        let e = generate_from("t.cu", "t.cu", &storing).unwrap_err();
        assert!(e.contains("needs an `unsafe:` clause"), "{e}");
        for wrong in [
            "CUtensorMap a_map",
            "const CUtensorMap a_map",
            "__grid_constant__ CUtensorMap a_map",
            "const __grid_constant__ CUtensorMap *a_map",
            "const __grid_constant__ float x",
        ] {
            let file = format!("extern \"C\" __global__ void k({wrong}, float *c) {{ }}\n");
            let e = generate_from("t.cu", "t.cu", &file).unwrap_err();
            assert!(e.contains("`const __grid_constant__"), "{wrong}: {e}");
        }
    }

    #[test]
    fn launcher_types_are_named_in_camel_case() {
        assert_eq!(camel("image_coarse_4_64"), "ImageCoarse4_64");
        assert_eq!(camel("adder"), "Adder");
    }
}
