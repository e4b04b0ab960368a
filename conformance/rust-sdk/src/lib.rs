//! Breakwater's conformance suite for the official Durable Workflow Rust SDK (crates.io
//! `durable-workflow`, pinned in Cargo.toml): real SDK workers and clients against the embedded
//! server over HTTP. The scenarios live in tests/conformance/, run by tests/conformance.rs.

pub mod server;
pub mod support;
pub mod workflows;
