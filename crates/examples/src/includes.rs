//! What a kernel sent to the workshop server may include: the CUDA headers the course's own
//! kernels use, never a file of the server's (`#include "/etc/passwd"` would put its text in
//! NVRTC's log, which goes back to the sender).

/// The headers a kernel may include: those the course's own kernels use, and CUDA's half and
/// bfloat16 types.
pub const HEADERS: [&str; 4] = [
    "cooperative_groups.h",
    "cooperative_groups/reduce.h",
    "cuda_fp16.h",
    "cuda_bf16.h",
];
/// `Err` with one sentence where the kernel includes anything but [`HEADERS`]. Lines joined by
/// a backslash count as one, and comments are not directives.
pub fn check_includes(text: &str) -> Result<(), String> {
    let joined = text.replace("\\\r\n", "").replace("\\\n", "");
    let mut in_comment = false;
    for (number, line) in joined.lines().enumerate() {
        let mut code = String::new();
        let mut rest = line;
        loop {
            if in_comment {
                match rest.find("*/") {
                    Some(end) => {
                        rest = &rest[end + 2..];
                        in_comment = false;
                    }
                    None => break,
                }
            } else {
                let open = rest.find("/*");
                let line_comment = rest.find("//");
                match (open, line_comment) {
                    (Some(o), l) if l.is_none_or(|l| o < l) => {
                        code.push_str(&rest[..o]);
                        code.push(' ');
                        rest = &rest[o + 2..];
                        in_comment = true;
                    }
                    (_, Some(l)) => {
                        code.push_str(&rest[..l]);
                        break;
                    }
                    _ => {
                        code.push_str(rest);
                        break;
                    }
                }
            }
        }
        let directive = code.trim_start();
        let Some(after_hash) = directive.strip_prefix('#') else {
            continue;
        };
        let word = after_hash.trim_start();
        let name: String = word
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if !matches!(
            name.as_str(),
            "include" | "include_next" | "import" | "embed"
        ) {
            continue;
        }
        let target = word[name.len()..].trim();
        let allowed = name == "include"
            && HEADERS
                .iter()
                .any(|h| target == format!("<{h}>") || target == format!("\"{h}\""));
        if !allowed {
            return Err(format!(
                "line {} includes `{}`, but a kernel sent to the server may include only {}",
                number + 1,
                target.chars().take(60).collect::<String>(),
                HEADERS.map(|h| format!("<{h}>")).join(", ")
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::check_includes;

    #[test]
    fn the_course_headers_pass() {
        let text = "#include <cooperative_groups.h>\n  #  include \"cuda_bf16.h\"\n";
        assert_eq!(check_includes(text), Ok(()));
    }

    #[test]
    fn other_files_are_refused_however_written() {
        for text in [
            "#include \"/etc/passwd\"\n",
            "#include </etc/passwd>\n",
            "# \\\n include \"/etc/passwd\"\n",
            "/* x */ #include \"a.h\"\n",
            "#define F \"/etc/passwd\"\n#include F\n",
            "#include_next <stdio.h>\n",
            "#embed \"/etc/passwd\"\n",
            "#inc\\\nlude </etc/shadow>\n",
        ] {
            let refused = check_includes(text);
            assert!(refused.is_err(), "{text:?} passed");
            assert!(refused.unwrap_err().len() <= 200);
        }
    }

    #[test]
    fn comments_and_strings_of_include_are_not_directives() {
        let text = "// #include \"/etc/passwd\"\n/*\n#include \"/etc/passwd\"\n*/\nint x;\n";
        assert_eq!(check_includes(text), Ok(()));
    }
}
