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
//! a kernel rebuilds the programs that use it, and only those.

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
        list.push(format!("({file:?}, {module}::NAMES, {module}::PTX_PARAMS)"));
    }
    code.push_str(&format!(
        "/// (file, entry points, PTX parameter kinds per entry point), one per kernel file.\n\
         pub const FILES: &[(&str, &[&str], &[&[&str]])] = &[{}];\n",
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
    if name.contains(['/', '\\']) || !name.ends_with(".cu") {
        return Err(format!(
            "`{name}` is not the name of a .cu file in kernels/"
        ));
    }
    Ok(name.to_string())
}

fn generate(file: &str) -> Result<String, String> {
    let path = format!("{KERNELS_DIR}/{file}");
    let source =
        std::fs::read_to_string(&path).map_err(|e| format!("cannot read kernels/{file}: {e}"))?;
    let kernels = signature::kernels(&source).map_err(|e| format!("kernels/{file}: {e}"))?;
    let mut fields = String::new();
    let mut loads = String::new();
    let mut methods = String::new();
    for k in &kernels {
        fields.push_str(&format!(
            "    /// `{}` of `kernels/{file}`.\n    pub {}: ::cudarc::driver::CudaFunction,\n",
            k.name, k.name
        ));
        loads.push_str(&format!(
            "            {0}: ::course::kernel::function(module, {0:?}),\n",
            k.name
        ));
        methods.push_str(&method(k, file));
    }
    let names: Vec<String> = kernels.iter().map(|k| format!("{:?}", k.name)).collect();
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
         /// The entry points of `kernels/{file}`, found in a module compiled from it.\n\
         #[allow(non_snake_case, dead_code)]\n\
         pub struct Kernels {{\n{fields}}}\n\
         #[allow(non_snake_case, dead_code, clippy::too_many_arguments)]\n\
         impl Kernels {{\n\
             /// Every entry point of the file, by name; a program stops with one sentence if\n\
             /// the module lacks one.\n\
             pub fn load(module: &::std::sync::Arc<::cudarc::driver::CudaModule>) -> Self {{\n\
                 Kernels {{\n{loads}        }}\n\
             }}\n\
         {methods}}}\n",
        names = names.join(", "),
        kinds = kinds.join(", "),
    ))
}

/// The C signature as the file declares it, for the launcher's documentation.
fn c_signature(k: &Kernel) -> String {
    let params: Vec<String> = k
        .params
        .iter()
        .map(|p| match p.access {
            Some(Access::Read) => format!("const {} *{}", p.c_type, p.name),
            Some(Access::Write) => format!("{} *{}", p.c_type, p.name),
            None => format!("{} {}", p.c_type, p.name),
        })
        .collect();
    format!("{}({})", k.name, params.join(", "))
}

fn method(k: &Kernel, file: &str) -> String {
    let mut generics = Vec::new();
    let mut params = Vec::new();
    let mut pushes = Vec::new();
    for (i, p) in k.params.iter().enumerate() {
        let name = format!("{}_", p.name); // never a Rust keyword (`ref`, `type`, `in`...)
        let element = match rust_vector(&p.c_type) {
            Some(bound) => {
                generics.push(format!("E{i}: ::course::launch::{bound}"));
                format!("E{i}")
            }
            None => rust_scalar(&p.c_type).unwrap_or("()").to_string(),
        };
        match p.access {
            Some(Access::Read) => {
                params.push(format!("{name}: &'a impl ::course::launch::In<{element}>"));
                pushes.push(format!("::course::launch::In::push_in({name}, &mut args);"));
            }
            Some(Access::Write) => {
                params.push(format!(
                    "{name}: &'a mut impl ::course::launch::Out<{element}>"
                ));
                pushes.push(format!(
                    "::course::launch::Out::push_out({name}, &mut args);"
                ));
            }
            None => {
                params.push(format!("{name}: {element}"));
                pushes.push(format!("args.arg(&{name});"));
            }
        }
    }
    let bounds = match k.launch_bounds {
        Some(n) => format!(" Its `__launch_bounds__` allow at most {n} threads per block."),
        None => String::new(),
    };
    let generics = if generics.is_empty() {
        String::new()
    } else {
        format!(", {}", generics.join(", "))
    };
    format!(
        "    /// Launches `{sig}` of `kernels/{file}` on `stream`.\n\
         ///\n\
         /// # Safety\n\
         /// The types are the kernel's, but the kernel indexes its buffers with what it is\n\
         /// given: the caller must make the grid and every length or size argument agree with\n\
         /// the buffers' lengths, so that no thread reads or writes outside them.{bounds}\n\
         pub unsafe fn {name}<'a{generics}>(\n\
             &'a self,\n\
             stream: &'a ::cudarc::driver::CudaStream,\n\
             config: ::cudarc::driver::LaunchConfig,\n\
             {params}\n\
         ) -> ::std::result::Result<(), ::cudarc::driver::DriverError> {{\n\
             use ::cudarc::driver::PushKernelArg as _;\n\
             let mut args = stream.launch_builder(&self.{name});\n\
             {pushes}\n\
             // SAFETY: the argument types are the kernel's; the caller keeps the contract above.\n\
             unsafe {{ args.launch(config) }}.map(|_| ())\n\
         }}\n",
        sig = c_signature(k),
        name = k.name,
        params = params.join(",\n"),
        pushes = pushes.join("\n"),
    )
}
