//! Exercise: "Challenge: which GPU holds what" ("Several GPUs"), as a function: which of the
//! machine's GPUs a program sees under a setting of `CUDA_VISIBLE_DEVICES`. Predict the
//! challenge's answers with it, then run `multi_gpu` to see. `cargo run --bin judge -- ch03`
//! checks it against CUDA's rules and, on a GPU, against the driver.
#![allow(unused_variables)]

/// The machine's numbers of the GPUs a program sees, in the order the program numbers them
/// 0, 1, 2, ... `setting` is `CUDA_VISIBLE_DEVICES` (`None` when it is not set) and
/// `machine_gpus` the number of GPUs in the machine, numbered from 0. A setting is a list of
/// GPU numbers separated by commas, without spaces, each at most once; an entry that is not the
/// number of one of the machine's GPUs hides every GPU listed after it.
pub fn visible_gpus(setting: Option<&str>, machine_gpus: usize) -> Vec<usize> {
    // TODO: unset shows every GPU; set, read the list in order.
    todo!("the machine's number of each GPU the program sees")
}
