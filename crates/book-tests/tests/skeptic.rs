// Every `rust` block of the book, after its includes are expanded (see build.rs).
include!(concat!(env!("OUT_DIR"), "/skeptic-tests.rs"));
