//! XAuthorizationPolicy status (GEP-3779, proposal) for one controller: the entry `me` writes
//! on every policy (`Accepted` with `Accepted`, `Invalid` or `TargetNotFound`, for the policy's
//! Namespace as ancestor; [`gamma_authz::Authorizer::desired_status`]), merged into the copy in
//! the snapshot as a BackendTLSPolicy's entries are ([`DesiredObjectStatus::merge_into`],
//! i.e. `gamma_arbiter::merge_policy_status`): other controllers' entries stay as stored, and a
//! policy whose merged status would not change is not written.
//!
//! Apart from [`crate::Reconciler`]: a policy's status depends on the policies and the Pods
//! only, not on routes or ownership, and Pods change far more often than routes, so an
//! embedder computes it when a policy or a Pod changed (gamma-kube does) instead of on every
//! route change.

use std::collections::BTreeMap;

use gamma_arbiter::Identity;
use gamma_authz::{Authorizer, Config};
use gamma_model::gateway::PolicyStatus;
use gamma_model::meta::Time;
use gamma_model::{AnyResource, ObjectKey, Snapshot};

use crate::{DesiredObjectStatus, Diagnostic, ObjectMerge, ObjectStatus};

/// The XAuthorizationPolicy status writes of one snapshot for one controller.
#[derive(Debug, Default)]
#[non_exhaustive]
pub struct AuthorizationStatus {
    /// The policies whose status changes, each with the merged status to write on the copy in
    /// the snapshot (its `resourceVersion` as the precondition), in (namespace, name) order.
    pub updates: Vec<(ObjectKey, PolicyStatus)>,
    /// What `me` wants on each policy of `updates`: a writer that meets a conflict merges it
    /// again into the copy it reads back.
    pub desired: BTreeMap<ObjectKey, DesiredObjectStatus>,
    /// Copies older than their stored status ([`Diagnostic::StaleObject`]) and policies whose
    /// 16-entry ancestor list has no room for `me`'s entry ([`Diagnostic::AncestorsFull`]).
    pub diagnostics: Vec<Diagnostic>,
}

/// `me`'s status writes on every XAuthorizationPolicy of `snapshot` (with its Pods), stamped
/// `now` where a condition changes.
pub fn authorization_policy_statuses(
    snapshot: &Snapshot,
    me: &Identity,
    now: Time,
) -> AuthorizationStatus {
    // The status does not depend on the trust domain or the baseline: the default will do.
    let authorizer = Authorizer::build(snapshot, Config::default());
    let mut out = AuthorizationStatus::default();
    for id in authorizer.policies() {
        let Some(key) = authorizer.policy_key(id) else {
            continue;
        };
        let Some(object) = snapshot.get(&key) else {
            continue;
        };
        let entries = authorizer.desired_status(id);
        let generation = object.metadata().generation_or_zero();
        let desired = DesiredObjectStatus::XAuthorizationPolicy(entries.clone());
        match desired.merge_into(object, generation, me, now) {
            ObjectMerge::Write {
                status: ObjectStatus::XAuthorizationPolicy(status),
                dropped,
            } => {
                if !dropped.is_empty() {
                    out.diagnostics.push(Diagnostic::AncestorsFull {
                        policy: key.clone(),
                        dropped: dropped.len(),
                    });
                }
                out.updates.push((key.clone(), status));
                out.desired.insert(key, desired);
            }
            ObjectMerge::Stale { stored, known } => {
                out.diagnostics.push(Diagnostic::StaleObject {
                    object: key,
                    stored,
                    known,
                });
            }
            _ => {
                // nothing to write can still mean that `me`'s entry does not fit a full list
                let AnyResource::XAuthorizationPolicy(p) = object else {
                    continue;
                };
                let stored = p.status.as_ref().map_or(&[][..], |s| &s.ancestors[..]);
                let missing = entries
                    .iter()
                    .filter(|d| {
                        !stored.iter().any(|e| {
                            e.ancestor_ref == d.ancestor_ref && me.answers_to(&e.controller_name)
                        })
                    })
                    .count();
                if missing > 0 && stored.len() >= gamma_arbiter::MAX_ANCESTORS {
                    out.diagnostics.push(Diagnostic::AncestorsFull {
                        policy: key,
                        dropped: missing,
                    });
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use gamma_model::gateway::ConditionStatus;
    use gamma_model::{ResourceKind, decode};

    const ME: &str = "example.com/mesh";

    fn snapshot(yaml: &str) -> Snapshot {
        Snapshot::from_resources(decode(yaml).unwrap())
    }

    const POLICIES: &str = r#"
apiVersion: gateway.networking.x-k8s.io/v1alpha1
kind: XAuthorizationPolicy
metadata: {name: db, namespace: shop, generation: 3}
spec:
  targetRefs: [{group: "", kind: Pod, selector: {matchLabels: {app: db}}}]
  action: ALLOW
  enforcementLevel: Network
  rules: [{sources: [{type: ServiceAccount, serviceAccount: {name: web}}]}]
status:
  ancestors:
  - ancestorRef: {group: "", kind: Namespace, name: shop}
    controllerName: other.example/mesh
    conditions:
    - {type: Accepted, status: "False", reason: TargetNotFound, message: theirs,
       observedGeneration: 1, lastTransitionTime: "2026-01-01T00:00:00Z"}
---
apiVersion: gateway.networking.x-k8s.io/v1alpha1
kind: XAuthorizationPolicy
metadata: {name: bad, namespace: shop, generation: 1}
spec:
  targetRefs: [{group: "", kind: Pod, name: db-0, selector: {matchLabels: {app: db}}}]
  action: ALLOW
  enforcementLevel: Network
"#;

    const POD: &str = r#"
---
apiVersion: v1
kind: Pod
metadata: {name: db-0, namespace: shop, labels: {app: db}}
spec: {serviceAccountName: db}
status: {podIP: 10.0.0.10, podIPs: [{ip: 10.0.0.10}]}
"#;

    fn reason(status: &PolicyStatus, controller: &str) -> Option<(ConditionStatus, String)> {
        let entry = status
            .ancestors
            .iter()
            .find(|a| a.controller_name == controller)?;
        let c = entry.conditions.iter().find(|c| c.type_ == "Accepted")?;
        Some((c.status.clone(), c.reason.clone()))
    }

    // GEP-713 `Accepted`: TargetNotFound without Pods, Accepted once one is selected; the
    // invalid policy (a Pod target with a name, GEP-3779 "Selector may only be set...") is
    // Invalid either way; the other controller's entry is kept.
    #[test]
    fn policies_get_me_s_accepted_entry_beside_other_controllers_entries() {
        let me = Identity::new(ME);
        let now = Time::parse("2026-12-07T00:00:00Z").unwrap();
        let without = authorization_policy_statuses(&snapshot(POLICIES), &me, now);
        let keys: Vec<&str> = without.updates.iter().map(|(k, _)| &*k.name).collect();
        assert_eq!(keys, ["bad", "db"], "(namespace, name) order");
        let db = &without.updates[1].1;
        assert_eq!(
            reason(db, ME),
            Some((ConditionStatus::False, "TargetNotFound".into()))
        );
        assert_eq!(
            reason(db, "other.example/mesh"),
            Some((ConditionStatus::False, "TargetNotFound".into())),
            "the other controller's entry stays"
        );
        assert_eq!(db.ancestors.len(), 2);
        let mine = db
            .ancestors
            .iter()
            .find(|a| a.controller_name == ME)
            .unwrap();
        assert_eq!(mine.ancestor_ref.kind.as_deref(), Some("Namespace"));
        assert_eq!(mine.ancestor_ref.name, "shop");
        assert_eq!(mine.conditions[0].observed_generation, Some(3));
        assert_eq!(
            reason(&without.updates[0].1, ME),
            Some((ConditionStatus::False, "Invalid".into()))
        );
        let with = authorization_policy_statuses(&snapshot(&format!("{POLICIES}{POD}")), &me, now);
        let db = &with.updates[1].1;
        assert_eq!(
            reason(db, ME),
            Some((ConditionStatus::True, "Accepted".into()))
        );
        assert!(with.desired.contains_key(&ObjectKey::new(
            ResourceKind::XAuthorizationPolicy,
            "shop",
            "db"
        )));
    }

    #[test]
    fn a_policy_whose_stored_status_already_says_it_is_not_written_again() {
        let me = Identity::new(ME);
        let now = Time::parse("2026-12-07T00:00:00Z").unwrap();
        let first = authorization_policy_statuses(&snapshot(POLICIES), &me, now);
        // store what was written, as the API server would
        let mut resources = decode(POLICIES).unwrap();
        for r in &mut resources {
            if let AnyResource::XAuthorizationPolicy(p) = r {
                let (_, status) = first
                    .updates
                    .iter()
                    .find(|(k, _)| k.name == p.metadata.name)
                    .unwrap();
                p.status = Some(status.clone());
            }
        }
        let later = Time::parse("2026-12-07T01:00:00Z").unwrap();
        let again = authorization_policy_statuses(&Snapshot::from_resources(resources), &me, later);
        assert!(again.updates.is_empty(), "{:?}", again.updates);
        assert!(again.diagnostics.is_empty());
    }
}
