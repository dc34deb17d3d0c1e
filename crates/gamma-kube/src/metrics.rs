//! Prometheus metrics (prometheus-client): reconciles, status writes, conflicts, retries and
//! decisions by verdict.

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;

/// The `kind` label of reconciles.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ReconcileLabels {
    /// `full` or `change`.
    pub mode: &'static str,
}

/// The `verdict` label of decisions.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct VerdictLabels {
    /// `owned`, `foreign`, `conflict`, ... (the decision of `me` for a pair).
    pub verdict: &'static str,
}

/// The labels of the Gateway API bundle the cluster runs.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct BundleLabels {
    /// The release series, `v1.7`.
    pub release: &'static str,
    /// `standard` or `experimental`.
    pub channel: &'static str,
}

impl BundleLabels {
    /// The labels of `bundle`.
    pub fn of(bundle: gamma_model::validate::Bundle) -> BundleLabels {
        BundleLabels {
            release: bundle.release.as_str(),
            channel: bundle.channel.as_str(),
        }
    }
}

/// The labels of a kind judged by another bundle than the cluster's default.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct KindBundleLabels {
    /// The kind, `GRPCRoute`.
    pub kind: &'static str,
    /// The release series of its CRD, `v1.6`.
    pub release: &'static str,
    /// `standard` or `experimental`.
    pub channel: &'static str,
}

/// The runtime's counters; cheap to clone (shared).
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct Metrics {
    /// Reconciliations, by mode.
    pub reconciles: Family<ReconcileLabels, Counter>,
    /// Status writes the API server accepted.
    pub status_writes: Counter,
    /// 409 Conflicts met while writing status.
    pub conflicts: Counter,
    /// Writes given up after the last retry, or failed.
    pub write_errors: Counter,
    /// Re-reads and re-merges after a conflict.
    pub retries: Counter,
    /// Decisions of `me` for (route, parent) pairs, by verdict, per reconciliation.
    pub decisions: Family<VerdictLabels, Counter>,
    /// Objects that did not decode and were skipped.
    pub undecodable: Counter,
    /// Status entries `me` wanted but left out: the route's `status.parents` was at its
    /// 32-entry cap, and other controllers' entries are never evicted.
    pub entries_dropped: Counter,
    /// 1 when every served version of every installed route CRD declares
    /// `parentRefs[].controllers` (the gamma-rs CRD extension), else 0: ladder level 1 then
    /// reads only the route annotation. Set once the CRDs have listed, and at every change.
    pub parent_ref_controllers_declared: Gauge,
    /// The Gateway API bundle the cluster's CRDs name, whose rules routes are validated
    /// against: one series at 1 (none before the CRDs are listed, or without any Gateway API
    /// CRD); replaced when the bundle changes.
    pub bundle_info: Family<BundleLabels, Gauge>,
    /// The kinds whose CRD names another bundle than [`Metrics::bundle_info`]'s, each judged
    /// by its own: one series at 1 per such kind (none on a cluster of one bundle).
    pub kind_bundle_info: Family<KindBundleLabels, Gauge>,
}

impl Metrics {
    /// New counters, registered in `registry` under the prefix `gamma`.
    pub fn register(registry: &mut Registry) -> Metrics {
        let m = Metrics::default();
        let r = registry.sub_registry_with_prefix("gamma");
        r.register(
            "reconciles",
            "Reconciliations by mode",
            m.reconciles.clone(),
        );
        r.register(
            "status_writes",
            "Route status writes accepted",
            m.status_writes.clone(),
        );
        r.register(
            "status_conflicts",
            "409 Conflicts on status writes",
            m.conflicts.clone(),
        );
        r.register(
            "status_retries",
            "Re-merged status retries",
            m.retries.clone(),
        );
        r.register(
            "status_write_errors",
            "Status writes that failed",
            m.write_errors.clone(),
        );
        r.register("decisions", "Decisions by verdict", m.decisions.clone());
        r.register(
            "undecodable_objects",
            "Objects skipped as undecodable",
            m.undecodable.clone(),
        );
        r.register(
            "status_entries_dropped",
            "Status entries left out at the 32-entry status.parents cap",
            m.entries_dropped.clone(),
        );
        r.register(
            "parent_ref_controllers_declared",
            "1 when the route CRDs declare parentRefs[].controllers (gamma-rs CRD extension), else 0",
            m.parent_ref_controllers_declared.clone(),
        );
        r.register(
            "gateway_api_bundle_info",
            "The Gateway API release and channel of the cluster's CRDs, whose rules routes are validated against",
            m.bundle_info.clone(),
        );
        r.register(
            "gateway_api_kind_bundle_info",
            "The kinds whose CRD names another Gateway API release or channel than the cluster's, each validated by its own",
            m.kind_bundle_info.clone(),
        );
        m
    }

    /// Shows, in [`Metrics::kind_bundle_info`], each kind judged by another bundle than the
    /// default (and no other).
    pub fn set_kind_bundles(&self, kinds: &gamma_model::validate::KindBundles) {
        self.kind_bundle_info.clear();
        for (kind, bundle) in kinds.overrides() {
            self.kind_bundle_info
                .get_or_create(&KindBundleLabels {
                    kind: kind.as_str(),
                    release: bundle.release.as_str(),
                    channel: bundle.channel.as_str(),
                })
                .set(1);
        }
    }

    /// Shows `bundle` as the cluster's in [`Metrics::bundle_info`] (and no other).
    pub fn set_bundle(&self, bundle: gamma_model::validate::Bundle) {
        self.bundle_info.clear();
        self.bundle_info
            .get_or_create(&BundleLabels::of(bundle))
            .set(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_are_exposed_in_the_text_format() {
        let mut registry = Registry::default();
        let m = Metrics::register(&mut registry);
        m.status_writes.inc();
        m.decisions
            .get_or_create(&VerdictLabels { verdict: "owned" })
            .inc_by(3);
        let mut text = String::new();
        prometheus_client::encoding::text::encode(&mut text, &registry).unwrap();
        assert!(text.contains("gamma_status_writes_total 1"), "{text}");
        assert!(
            text.contains("gamma_decisions_total{verdict=\"owned\"} 3"),
            "{text}"
        );
    }

    #[test]
    fn the_bundle_info_shows_only_the_current_bundle() {
        use gamma_model::validate::{Bundle, Channel, Release};
        let mut registry = Registry::default();
        let m = Metrics::register(&mut registry);
        let encode = |registry: &Registry| {
            let mut text = String::new();
            prometheus_client::encoding::text::encode(&mut text, registry).unwrap();
            text
        };
        assert!(!encode(&registry).contains("gamma_gateway_api_bundle_info{"));
        let old = Bundle::new(Release::V1_6, Channel::Experimental);
        let new = Bundle::new(Release::V1_7, Channel::Standard);
        let line = |b: Bundle| {
            format!(
                "gamma_gateway_api_bundle_info{{release=\"{}\",channel=\"{}\"}} 1",
                b.release.as_str(),
                b.channel.as_str()
            )
        };
        m.set_bundle(old);
        assert!(encode(&registry).contains(&line(old)));
        m.set_bundle(new);
        let text = encode(&registry);
        assert!(text.contains(&line(new)), "{text}");
        assert!(!text.contains(&line(old)), "{text}");
    }
}
