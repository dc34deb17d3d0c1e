//! placeholder until the foundation lands
