//! Test support for `validation_differential.rs`: the CRD reader, the object generator, case
//! building, the dry-run client and CEL rule coverage.

pub mod apply;
pub mod core;
pub mod coverage;
pub mod crd;
pub mod generate;
pub mod server;
pub mod targeted;
