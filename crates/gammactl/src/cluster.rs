//! Reading the objects from a live cluster (`--kubeconfig`, `--context`, `--cluster`) in place
//! of `-f`: one list of every kind the engines read, through gamma-kube, no watch. Each object
//! becomes one JSON input, so every command answers for a cluster exactly as for the same
//! objects given as files.
//!
//! The tokio runtime exists only here: a run with `-f` never starts one.

use gamma_kube::crd_extension::Availability;

use crate::cli::InputArgs;
use crate::failure::{Failure, input};
use crate::input::Source;

/// Whether `args` name a cluster rather than files.
pub fn wanted(args: &InputArgs) -> bool {
    args.kubeconfig.is_some() || args.context.is_some() || args.cluster
}

/// Every object of the cluster `args` name, one [`Source`] each, named
/// `cluster:<Kind>/<namespace>/<name>` (`cluster:<Kind>/<name>` when cluster-scoped), and
/// whether its route CRDs declare `parentRefs[].controllers` (the gamma-rs CRD extension).
pub fn read(args: &InputArgs) -> Result<(Vec<Source>, Availability), Failure> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| input(format!("cannot start the cluster client: {e}")))?;
    let listed = runtime.block_on(async {
        let client = gamma_kube::list::connect(args.kubeconfig.as_deref(), args.context.as_deref())
            .await
            .map_err(|e| input(format!("cannot reach the cluster: {e}")))?;
        gamma_kube::list::list_all(&client)
            .await
            .map_err(|e| input(format!("cannot list the cluster's objects: {e}")))
    })?;
    Ok((
        listed.objects.iter().map(source).collect(),
        listed.parent_ref_controllers,
    ))
}

fn source(object: &serde_json::Value) -> Source {
    let text = |v: &serde_json::Value| v.as_str().unwrap_or("").to_owned();
    let kind = text(&object["kind"]);
    let name = text(&object["metadata"]["name"]);
    let name = match object["metadata"]["namespace"].as_str() {
        Some(ns) => format!("cluster:{kind}/{ns}/{name}"),
        None => format!("cluster:{kind}/{name}"),
    };
    Source {
        name,
        // Serialising a JSON value cannot fail.
        text: serde_json::to_string_pretty(object).unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_are_named_after_the_object() {
        let s = source(&serde_json::json!({
            "apiVersion": "v1", "kind": "Service",
            "metadata": {"name": "web", "namespace": "shop"}
        }));
        assert_eq!(s.name, "cluster:Service/shop/web");
        let s = source(&serde_json::json!({
            "apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "shop"}
        }));
        assert_eq!(s.name, "cluster:Namespace/shop");
        assert!(s.text.contains("\"kind\": \"Namespace\""));
    }
}
