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

use std::time::{Duration, Instant};

use gamma_arbiter::DesiredStatus;
use gamma_arbiter::{Identity, MergeOutcome, merge_outcome};
use gamma_controller::{DesiredObjectStatus, ObjectMerge, ObjectStatus};
use gamma_model::gateway::RouteStatus;
use gamma_model::meta::Time;
use gamma_model::{AnyResource, DecodeError, ObjectKey};
use kube::Resource;
use kube::api::{DynamicObject, ObjectMeta, PostParams};
use kube::core::{Request, TypeMeta};
use serde::Serialize;
use tracing::{debug, instrument};

use crate::kinds::api_resource;
use crate::metrics::{Metrics, WritePhase};

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
    metrics: Metrics,
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
            metrics: Metrics::default(),
        }
    }

    /// Records how long each phase of every write takes in `metrics`'
    /// [`Metrics::status_write_duration`] (see [`WritePhase`]; `apply` is the decoding of the
    /// answer alone, as this writer keeps no snapshot).
    pub fn with_metrics(mut self, metrics: Metrics) -> StatusWriter {
        self.metrics = metrics;
        self
    }

    /// Writes `update`: first on the copy it was merged from, then, after each 409, on a
    /// fresh copy merged again. `now` stamps changed conditions on a re-merge.
    pub async fn write(&self, update: &Update<'_>, now: Time) -> Result<Written> {
        let timed = self.write_timed(update, now).await;
        self.observe_decoded(timed)
    }

    /// Writes the status of a Gateway, ListenerSet or BackendTLSPolicy as [`Self::write`]
    /// writes a route's: on the copy it was merged from, then after each 409 on a fresh copy
    /// merged again ([`DesiredObjectStatus::merge_into`]), so another controller's ancestor
    /// entry written meanwhile survives.
    pub async fn write_object(&self, update: &ObjectUpdate<'_>, now: Time) -> Result<Written> {
        let timed = self.write_object_timed(update, now).await;
        self.observe_decoded(timed)
    }

    /// The `apply` phase of a write made through the public methods: the answer's decoding.
    fn observe_decoded(&self, timed: Result<(Written, Duration)>) -> Result<Written> {
        let (written, decoded) = timed?;
        if let Written::Written { .. } = written {
            self.metrics.observe_write_phase(WritePhase::Apply, decoded);
        }
        Ok(written)
    }

    /// [`Self::write`], with how long decoding the accepted `PUT`'s answer took (zero without
    /// one): the runtime adds its snapshot upsert to it for the `apply` phase.
    #[instrument(skip_all, fields(route = %update.route.namespace, name = %update.route.name))]
    pub(crate) async fn write_timed(
        &self,
        update: &Update<'_>,
        now: Time,
    ) -> Result<(Written, Duration)> {
        self.write_status(
            update.route,
            update.api_version,
            update.resource_version,
            update.status,
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

    /// [`Self::write_object`], with how long decoding the answer took (see
    /// [`Self::write_timed`]).
    #[instrument(skip_all, fields(object = %update.object.namespace, name = %update.object.name))]
    pub(crate) async fn write_object_timed(
        &self,
        update: &ObjectUpdate<'_>,
        now: Time,
    ) -> Result<(Written, Duration)> {
        self.write_status(
            update.object,
            update.api_version,
            update.resource_version,
            update.status,
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
    /// `remerge` makes of a fresh copy. The phases are observed here but for the decoding of
    /// the accepted `PUT`'s answer, whose duration is returned with the outcome.
    ///
    /// The requests go to the client directly, not through `Api`, whose calls serialize the
    /// body and parse the answer within the round trip: made apart, the three are timed apart.
    async fn write_status(
        &self,
        key: &ObjectKey,
        api_version: &str,
        resource_version: Option<&str>,
        status: &impl Serialize,
        remerge: impl Fn(&AnyResource) -> Remerged,
    ) -> Result<(Written, Duration)> {
        let ar = api_resource(key.kind, api_version);
        let request = Request::new(DynamicObject::url_path(&ar, Some(&key.namespace)));
        let label = || format!("{}/{}", key.namespace, key.name);
        let api_error = |source| Error::Api {
            route: label(),
            source,
        };
        let done = |written| Ok((written, Duration::ZERO));
        let mut resource_version = resource_version.map(str::to_owned);
        // The status merged again after a conflict; `status` itself before the first.
        let mut remerged: Option<serde_json::Value> = None;
        let mut conflicts = 0;
        for attempt in 0..self.backoff.max_attempts.max(1) {
            if attempt > 0 {
                tokio::time::sleep(self.backoff.delay(attempt - 1)).await;
                // Re-read and re-merge: never write a status computed from an old copy.
                let mut get = request
                    .get_subresource("status", &key.name)
                    .map_err(|e| api_error(kube::Error::BuildRequest(e)))?;
                get.extensions_mut().insert("get_status");
                let answer = self.round_trip(self.client.request_text(get)).await;
                let started = Instant::now();
                let fresh: DynamicObject = match answer {
                    Ok(text) => serde_json::from_str(&text)
                        .map_err(|e| api_error(kube::Error::SerdeError(e)))?,
                    Err(kube::Error::Api(s)) if s.is_not_found() => return done(Written::Gone),
                    Err(source) => return Err(api_error(source)),
                };
                resource_version = fresh.metadata.resource_version.clone();
                let fresh =
                    AnyResource::from_value(crate::watches::to_value(fresh)).map_err(|source| {
                        Error::Decode {
                            route: label(),
                            source,
                        }
                    })?;
                let outcome = remerge(&fresh);
                self.metrics
                    .observe_write_phase(WritePhase::Merge, started.elapsed());
                match outcome {
                    Remerged::Write(s) => remerged = Some(s),
                    Remerged::Stale => return done(Written::Stale),
                    Remerged::Unchanged => return done(Written::Unchanged { conflicts }),
                }
            }
            let started = Instant::now();
            let body = match &remerged {
                Some(s) => body(key, api_version, resource_version.clone(), s),
                None => {
                    let s = serde_json::to_value(status).unwrap_or_default();
                    body(key, api_version, resource_version.clone(), &s)
                }
            };
            let data =
                serde_json::to_vec(&body).map_err(|e| api_error(kube::Error::SerdeError(e)))?;
            let mut put = request
                .replace_subresource("status", &key.name, &self.params, data)
                .map_err(|e| api_error(kube::Error::BuildRequest(e)))?;
            // The name kube's tracing gives the request, as `Api::replace_status` would.
            put.extensions_mut().insert("replace_status");
            self.metrics
                .observe_write_phase(WritePhase::Encode, started.elapsed());
            match self.round_trip(self.client.request_text(put)).await {
                Ok(text) => {
                    let started = Instant::now();
                    let object: DynamicObject = serde_json::from_str(&text)
                        .map_err(|e| api_error(kube::Error::SerdeError(e)))?;
                    let stored = crate::watches::decode_object(key.kind, api_version, object)
                        .ok()
                        .map(Box::new);
                    let written = Written::Written { conflicts, stored };
                    return Ok((written, started.elapsed()));
                }
                Err(kube::Error::Api(s)) if s.is_conflict() => {
                    debug!(attempt, "conflict: re-reading");
                    conflicts += 1;
                }
                Err(kube::Error::Api(s)) if s.is_not_found() => return done(Written::Gone),
                Err(source) => return Err(api_error(source)),
            }
        }
        Err(Error::Conflicts {
            route: label(),
            attempts: self.backoff.max_attempts,
        })
    }

    /// One HTTP round trip (`Client::request_text`: the answer's body as text, or the API
    /// server's refusal), observed as the `request` phase.
    async fn round_trip(
        &self,
        request: impl Future<Output = kube::Result<String>>,
    ) -> kube::Result<String> {
        // `request` is an async call, which does nothing before it is awaited here.
        let started = Instant::now();
        let answer = request.await;
        self.metrics
            .observe_write_phase(WritePhase::Request, started.elapsed());
        answer
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
