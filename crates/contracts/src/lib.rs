//! The property tests of the launch contracts live in `tests/contracts/`: see its `main.rs`.
