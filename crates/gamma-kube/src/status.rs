//! The only writer: status as a read-modify-write on the `status` subresource, for routes and
//! for the Gateways, ListenerSets and BackendTLSPolicies a gateway controller reports on.
//!
//! `status.parents` is an `x-kubernetes-list-type: atomic` list (Gateway API
//! `RouteStatus.parents`), as is a policy's `status.ancestors` (GEP-713 PolicyStatus), so
//! server-side apply by two controllers would replace each other's entries. Every write here
//! is a `PUT` on `.../status` carrying the `resourceVersion` of the copy it was merged from:
//! the API server refuses it (409 Conflict) if anyone wrote in between. On a conflict the
//! writer reads the object again, merges `me`'s desired status into what it read with the
//! pure merges of gamma-arbiter (`merge_outcome` for routes,
//! [`gamma_controller::DesiredObjectStatus::merge_into`] for the others), and retries with
//! bounded backoff; when the merge says nothing changes, nothing is written.

use std::time::Duration;

use gamma_arbiter::DesiredStatus;
use gamma_arbiter::{Identity, MergeOutcome, merge_outcome};
use gamma_controller::{DesiredObjectStatus, ObjectMerge, ObjectStatus};
use gamma_model::gateway::RouteStatus;
use gamma_model::meta::Time;
use gamma_model::{AnyResource, DecodeError, ObjectKey};
use kube::api::{Api, DynamicObject, ObjectMeta, PostParams};
use kube::core::TypeMeta;
use tracing::{debug, instrument};

use crate::kinds::api_resource;

/// Why a status write failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The API server refused or could not be reached. Retryable (the next reconcile tries
    /// again) unless the status is refused as invalid (422).
    #[error("writing the status of {route}: {source}")]
    Api {
        /// The route (or Gateway, ListenerSet, BackendTLSPolicy), as `namespace/name`.
        route: String,
        /// The client error.
        #[source]
        source: kube::Error,
    },
    /// The object read back does not decode. Not retryable until the object changes.
    #[error("reading back {route}: {source}")]
    Decode {
        /// The object, as `namespace/name`.
        route: String,
        /// Why it does not decode.
        #[source]
        source: DecodeError,
    },
    /// Still conflicting after every retry. Retryable: a later reconcile starts over.
    #[error("{route}: still conflicting after {attempts} attempts")]
    Conflicts {
        /// The object, as `namespace/name`.
        route: String,
        /// Attempts made.
        attempts: u32,
    },
}

/// A status result.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What one write did.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Written {
    /// The status was written after `conflicts` conflicts.
    Written {
        /// 409s met (each followed by a re-read and re-merge).
        conflicts: u32,
        /// The route as the API server stored it with this write (its new
        /// `resourceVersion`), for the snapshot to see the write before the watch brings it
        /// back; `None` if the response does not decode.
        stored: Option<Box<AnyResource>>,
    },
    /// After a conflict, the merge with what was read back changes nothing: nothing written.
    Unchanged {
        /// 409s met.
        conflicts: u32,
    },
    /// The stored status is for a newer generation than `me` knows: not written (a newer copy
    /// of the route is on its way through the watch).
    Stale,
    /// The route is gone.
    Gone,
}

/// Retries after conflicts: `max_attempts` writes in all, sleeping `base * 2^n` (at most
/// `max_delay`) between them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct WriteBackoff {
    /// Writes in all (at least 1).
    pub max_attempts: u32,
    /// The first delay.
    pub base: Duration,
    /// The longest delay.
    pub max_delay: Duration,
}

impl Default for WriteBackoff {
    fn default() -> Self {
        WriteBackoff {
            max_attempts: 6,
            base: Duration::from_millis(20),
            max_delay: Duration::from_secs(1),
        }
    }
}

impl WriteBackoff {
    /// The delay before retry `n` (0-based).
    pub fn delay(&self, n: u32) -> Duration {
        self.base
            .saturating_mul(2u32.saturating_pow(n))
            .min(self.max_delay)
    }
}

/// One status update to make: the merged status, and what it was merged from.
#[derive(Debug, Clone)]
pub struct Update<'a> {
    /// The route.
    pub route: &'a ObjectKey,
    /// Its apiVersion as watched (`gateway.networking.k8s.io/v1`).
    pub api_version: &'a str,
    /// The `resourceVersion` of the copy `status` was merged into.
    pub resource_version: Option<&'a str>,
    /// The generation of that copy.
    pub generation: i64,
    /// The status to write.
    pub status: &'a RouteStatus,
    /// `me`'s desired entries, merged again into a fresh copy after a conflict.
    pub desired: &'a DesiredStatus,
}

/// One status update of a Gateway, ListenerSet or BackendTLSPolicy (see
/// `gamma_controller::Reconciliation::object_desired`).
#[derive(Debug, Clone)]
pub struct ObjectUpdate<'a> {
    /// The object.
    pub object: &'a ObjectKey,
    /// Its apiVersion as watched (`gateway.networking.k8s.io/v1`).
    pub api_version: &'a str,
    /// The `resourceVersion` of the copy `status` was merged into.
    pub resource_version: Option<&'a str>,
    /// The generation of that copy.
    pub generation: i64,
    /// The status to write.
    pub status: &'a ObjectStatus,
    /// What `me` wants, merged again into a fresh copy after a conflict.
    pub desired: &'a DesiredObjectStatus,
}

/// What a re-merge into a copy read back says.
enum Remerged {
    Write(serde_json::Value),
    Unchanged,
    Stale,
}

/// Writes status for one controller identity (its field manager).
#[derive(Clone)]
pub struct StatusWriter {
    client: kube::Client,
    me: Identity,
    params: PostParams,
    backoff: WriteBackoff,
}

impl std::fmt::Debug for StatusWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StatusWriter")
            .field("me", &self.me)
            .field("field_manager", &self.params.field_manager)
            .finish_non_exhaustive()
    }
}

/// The field manager for a controller name: Kubernetes limits managers to 128 characters.
pub fn field_manager(controller_name: &str) -> String {
    controller_name.chars().take(128).collect()
}

impl StatusWriter {
    /// A writer for `me`, recorded as field manager [`field_manager`]`(me.name)`.
    pub fn new(client: kube::Client, me: Identity, backoff: WriteBackoff) -> StatusWriter {
        let params = PostParams {
            dry_run: false,
            field_manager: Some(field_manager(&me.name)),
        };
        StatusWriter {
            client,
            me,
            params,
            backoff,
        }
    }

    /// Writes `update`: first on the copy it was merged from, then, after each 409, on a
    /// fresh copy merged again. `now` stamps changed conditions on a re-merge.
    #[instrument(skip_all, fields(route = %update.route.namespace, name = %update.route.name))]
    pub async fn write(&self, update: &Update<'_>, now: Time) -> Result<Written> {
        let status = serde_json::to_value(update.status).unwrap_or_default();
        self.write_status(
            update.route,
            update.api_version,
            update.resource_version,
            status,
            |fresh| {
                let empty = RouteStatus::default();
                let stored = fresh.as_route().and_then(|r| r.status).unwrap_or(&empty);
                match merge_outcome(stored, update.desired, &self.me, update.generation, now) {
                    MergeOutcome::Write { status, .. } => {
                        Remerged::Write(serde_json::to_value(status).unwrap_or_default())
                    }
                    MergeOutcome::Stale { .. } => Remerged::Stale,
                    _ => Remerged::Unchanged,
                }
            },
        )
        .await
    }

    /// Writes the status of a Gateway, ListenerSet or BackendTLSPolicy as [`Self::write`]
    /// writes a route's: on the copy it was merged from, then after each 409 on a fresh copy
    /// merged again ([`DesiredObjectStatus::merge_into`]), so another controller's ancestor
    /// entry written meanwhile survives.
    #[instrument(skip_all, fields(object = %update.object.namespace, name = %update.object.name))]
    pub async fn write_object(&self, update: &ObjectUpdate<'_>, now: Time) -> Result<Written> {
        let status = serde_json::to_value(update.status).unwrap_or_default();
        self.write_status(
            update.object,
            update.api_version,
            update.resource_version,
            status,
            |fresh| match update
                .desired
                .merge_into(fresh, update.generation, &self.me, now)
            {
                ObjectMerge::Write { status, .. } => {
                    Remerged::Write(serde_json::to_value(status).unwrap_or_default())
                }
                ObjectMerge::Stale { .. } => Remerged::Stale,
                _ => Remerged::Unchanged,
            },
        )
        .await
    }

    /// The read-modify-write loop: `status` on `resource_version`, and after each 409 what
    /// `remerge` makes of a fresh copy.
    async fn write_status(
        &self,
        key: &ObjectKey,
        api_version: &str,
        resource_version: Option<&str>,
        mut status: serde_json::Value,
        remerge: impl Fn(&AnyResource) -> Remerged,
    ) -> Result<Written> {
        let ar = api_resource(key.kind, api_version);
        let api: Api<DynamicObject> =
            Api::namespaced_with(self.client.clone(), &key.namespace, &ar);
        let label = || format!("{}/{}", key.namespace, key.name);
        let mut resource_version = resource_version.map(str::to_owned);
        let mut conflicts = 0;
        for attempt in 0..self.backoff.max_attempts.max(1) {
            if attempt > 0 {
                tokio::time::sleep(self.backoff.delay(attempt - 1)).await;
                // Re-read and re-merge: never write a status computed from an old copy.
                let fresh = match api.get_status(&key.name).await {
                    Ok(o) => o,
                    Err(kube::Error::Api(s)) if s.is_not_found() => return Ok(Written::Gone),
                    Err(source) => {
                        return Err(Error::Api {
                            route: label(),
                            source,
                        });
                    }
                };
                resource_version = fresh.metadata.resource_version.clone();
                let fresh =
                    AnyResource::from_value(crate::watches::to_value(fresh)).map_err(|source| {
                        Error::Decode {
                            route: label(),
                            source,
                        }
                    })?;
                match remerge(&fresh) {
                    Remerged::Write(s) => status = s,
                    Remerged::Stale => return Ok(Written::Stale),
                    Remerged::Unchanged => return Ok(Written::Unchanged { conflicts }),
                }
            }
            let body = body(key, api_version, resource_version.clone(), &status);
            match api.replace_status(&key.name, &self.params, &body).await {
                Ok(object) => {
                    let stored = crate::watches::decode_object(key.kind, api_version, object)
                        .ok()
                        .map(Box::new);
                    return Ok(Written::Written { conflicts, stored });
                }
                Err(kube::Error::Api(s)) if s.is_conflict() => {
                    debug!(attempt, "conflict: re-reading");
                    conflicts += 1;
                }
                Err(kube::Error::Api(s)) if s.is_not_found() => return Ok(Written::Gone),
                Err(source) => {
                    return Err(Error::Api {
                        route: label(),
                        source,
                    });
                }
            }
        }
        Err(Error::Conflicts {
            route: label(),
            attempts: self.backoff.max_attempts,
        })
    }
}

/// The body of a `PUT .../status`: the API server takes only `status` from it (the status
/// subresource ignores every other change) and checks `resourceVersion` as the precondition.
fn body(
    route: &ObjectKey,
    api_version: &str,
    resource_version: Option<String>,
    status: &serde_json::Value,
) -> DynamicObject {
    DynamicObject {
        types: Some(TypeMeta {
            api_version: api_version.to_owned(),
            kind: route.kind.as_str().to_owned(),
        }),
        metadata: ObjectMeta {
            name: Some(route.name.clone()),
            namespace: Some(route.namespace.clone()),
            resource_version,
            ..ObjectMeta::default()
        },
        data: serde_json::json!({ "status": status }),
    }
}

#[cfg(test)]
mod tests {
    use gamma_model::ResourceKind;

    use super::*;

    #[test]
    fn backoff_doubles_up_to_the_cap() {
        let b = WriteBackoff::default();
        assert_eq!(b.delay(0), Duration::from_millis(20));
        assert_eq!(b.delay(1), Duration::from_millis(40));
        assert_eq!(b.delay(30), Duration::from_secs(1));
    }

    #[test]
    fn the_put_body_carries_the_precondition_and_only_status() {
        let route = ObjectKey::new(ResourceKind::HttpRoute, "shop", "web");
        let b = body(
            &route,
            "gateway.networking.k8s.io/v1",
            Some("42".into()),
            &serde_json::to_value(RouteStatus::default()).unwrap(),
        );
        let v = serde_json::to_value(&b).unwrap();
        assert_eq!(v["metadata"]["resourceVersion"], "42");
        assert_eq!(v["kind"], "HTTPRoute");
        assert!(v.get("spec").is_none());
        assert_eq!(v["status"], serde_json::json!({"parents": []}));
    }

    #[test]
    fn field_managers_fit_the_api_limit() {
        assert_eq!(
            field_manager("istio.io/gateway-controller"),
            "istio.io/gateway-controller"
        );
        assert_eq!(field_manager(&"x".repeat(300)).len(), 128);
    }
}
