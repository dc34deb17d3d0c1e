//! Prometheus metrics (prometheus-client): reconciles, status writes, conflicts, retries and
//! decisions by verdict, and how long reconciliations and each phase of a status write take.

use std::time::Duration;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::{Registry, Unit};

/// The `kind` label of reconciles.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ReconcileLabels {
    /// `full` or `change`.
    pub mode: &'static str,
}

/// The `phase` label of status write durations.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct WritePhaseLabels {
    /// The phase, [`WritePhase::as_str`].
    pub phase: &'static str,
}

impl WritePhaseLabels {
    /// The labels of `phase`.
    pub fn of(phase: WritePhase) -> WritePhaseLabels {
        WritePhaseLabels {
            phase: phase.as_str(),
        }
    }
}

/// A phase of one status write, as [`Metrics::status_write_duration`] splits it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum WritePhase {
    /// `merge`: after a 409 Conflict, decoding the copy read back and merging `me`'s desired
    /// status into it. The first merge, into the copy in the snapshot, is made by the
    /// reconciliation (gamma-controller decides there whether anything is to be written at
    /// all) and is part of [`Metrics::reconcile_duration`].
    Merge,
    /// `encode`: serializing the body of one `PUT .../status`.
    Encode,
    /// `request`: one HTTP round trip to the API server: a `PUT`, or the `GET` that re-reads
    /// the object after a 409. With several writes in flight, the time a finished answer
    /// waits for the runtime to pick it up is counted here too.
    Request,
    /// `apply`: decoding the object the API server stored from the `PUT`'s answer and, in
    /// the runtime, upserting it into the snapshot (once per write the API server accepted).
    Apply,
}

impl WritePhase {
    /// Every phase, in the order a write goes through them.
    pub const ALL: [WritePhase; 4] = [
        WritePhase::Merge,
        WritePhase::Encode,
        WritePhase::Request,
        WritePhase::Apply,
    ];

    /// The label value: `merge`, `encode`, `request` or `apply`.
    pub fn as_str(self) -> &'static str {
        match self {
            WritePhase::Merge => "merge",
            WritePhase::Encode => "encode",
            WritePhase::Request => "request",
            WritePhase::Apply => "apply",
        }
    }
}

/// The `mode` values of [`ReconcileLabels`].
const RECONCILE_MODES: [&str; 2] = ["full", "change"];

/// Upper bounds of the duration buckets, in seconds: 100 µs to 10 s in 1-2.5-5 steps, from
/// an incremental reconciliation or the encoding of one body (well under a millisecond in a
/// release build) to a full reconciliation of a large cluster or a round trip to a loaded
/// API server.
pub const DURATION_BUCKETS: [f64; 16] = [
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5,
    5.0, 10.0,
];

/// A histogram of durations in seconds over [`DURATION_BUCKETS`].
fn duration_histogram() -> Histogram {
    Histogram::new(DURATION_BUCKETS)
}

/// Histograms of durations by label set `L`, each over [`DURATION_BUCKETS`].
pub type DurationFamily<L> = Family<L, Histogram, fn() -> Histogram>;

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

/// The runtime's counters, gauges and histograms; cheap to clone (shared).
#[derive(Debug, Clone)]
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
    /// Seconds per reconciliation, by mode: the runtime's whole reconcile step (decisions,
    /// route table build or update, desired statuses merged into the stored ones, and the
    /// XAuthorizationPolicies' status when they are watched), without the status writes.
    pub reconcile_duration: DurationFamily<ReconcileLabels>,
    /// Seconds per phase of the status writes, by [`WritePhase`]: a sample per re-merge, per
    /// body encoded, per round trip and per write accepted.
    pub status_write_duration: DurationFamily<WritePhaseLabels>,
}

impl Default for Metrics {
    fn default() -> Metrics {
        Metrics {
            reconciles: Family::default(),
            status_writes: Counter::default(),
            conflicts: Counter::default(),
            write_errors: Counter::default(),
            retries: Counter::default(),
            decisions: Family::default(),
            undecodable: Counter::default(),
            entries_dropped: Counter::default(),
            parent_ref_controllers_declared: Gauge::default(),
            bundle_info: Family::default(),
            kind_bundle_info: Family::default(),
            reconcile_duration: Family::new_with_constructor(duration_histogram),
            status_write_duration: Family::new_with_constructor(duration_histogram),
        }
    }
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
        r.register_with_unit(
            "reconcile_duration",
            "Duration of one reconciliation (decisions, route table, desired and merged statuses), by mode",
            Unit::Seconds,
            m.reconcile_duration.clone(),
        );
        r.register_with_unit(
            "status_write_duration",
            "Duration of the phases of status writes: merge (after a conflict), encode, request (one round trip), apply (decoding the answer into the snapshot)",
            Unit::Seconds,
            m.status_write_duration.clone(),
        );
        // Every series exists from the start, so that a rate over it is defined before the
        // first observation.
        for mode in RECONCILE_MODES {
            drop(
                m.reconcile_duration
                    .get_or_create(&ReconcileLabels { mode }),
            );
        }
        for phase in WritePhase::ALL {
            drop(
                m.status_write_duration
                    .get_or_create(&WritePhaseLabels::of(phase)),
            );
        }
        m
    }

    /// Records that one reconciliation in `mode` (`full` or `change`) took `took`.
    pub fn observe_reconcile(&self, mode: &'static str, took: Duration) {
        self.reconcile_duration
            .get_or_create(&ReconcileLabels { mode })
            .observe(took.as_secs_f64());
    }

    /// Records that `phase` of a status write took `took`.
    pub fn observe_write_phase(&self, phase: WritePhase, took: Duration) {
        self.status_write_duration
            .get_or_create(&WritePhaseLabels::of(phase))
            .observe(took.as_secs_f64());
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

    // Durations are exported as Prometheus histograms in base units (seconds, the `_seconds`
    // suffix), one series per label value from the start.
    #[test]
    fn durations_are_exposed_as_histograms_in_seconds() {
        let mut registry = Registry::default();
        let m = Metrics::register(&mut registry);
        m.observe_reconcile("full", Duration::from_millis(3));
        m.observe_write_phase(WritePhase::Request, Duration::from_millis(200));
        m.observe_write_phase(WritePhase::Request, Duration::from_millis(50));
        let mut text = String::new();
        prometheus_client::encoding::text::encode(&mut text, &registry).unwrap();
        for line in [
            "# TYPE gamma_reconcile_duration_seconds histogram",
            "# UNIT gamma_reconcile_duration_seconds seconds",
            "gamma_reconcile_duration_seconds_count{mode=\"full\"} 1",
            "gamma_reconcile_duration_seconds_sum{mode=\"full\"} 0.003",
            // 3 ms falls in the 5 ms bucket, not the 2.5 ms one
            "gamma_reconcile_duration_seconds_bucket{le=\"0.0025\",mode=\"full\"} 0",
            "gamma_reconcile_duration_seconds_bucket{le=\"0.005\",mode=\"full\"} 1",
            "gamma_reconcile_duration_seconds_count{mode=\"change\"} 0",
            "# TYPE gamma_status_write_duration_seconds histogram",
            "gamma_status_write_duration_seconds_count{phase=\"request\"} 2",
            "gamma_status_write_duration_seconds_sum{phase=\"request\"} 0.25",
            "gamma_status_write_duration_seconds_bucket{le=\"0.1\",phase=\"request\"} 1",
            "gamma_status_write_duration_seconds_bucket{le=\"0.25\",phase=\"request\"} 2",
            "gamma_status_write_duration_seconds_count{phase=\"merge\"} 0",
            "gamma_status_write_duration_seconds_count{phase=\"encode\"} 0",
            "gamma_status_write_duration_seconds_count{phase=\"apply\"} 0",
        ] {
            assert!(text.lines().any(|l| l == line), "{line} in:\n{text}");
        }
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
