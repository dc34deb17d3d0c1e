//! Watches: one kube-runtime watcher per kind, its objects decoded straight from the API's
//! JSON with [`AnyResource::from_value`] (no text round trip; unknown enum values tolerated),
//! and a watcher on CustomResourceDefinitions that says which Gateway API kinds are served.

use futures::StreamExt;
use gamma_model::{AnyResource, ResourceKind};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, DynamicObject};
use kube::runtime::WatchStreamExt;
use kube::runtime::watcher::{self, Event};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tracing::{Instrument, info_span, warn};

use crate::kinds::api_resource;

/// What the watch tasks send to the runtime loop.
#[derive(Debug)]
#[non_exhaustive]
#[expect(
    clippy::large_enum_variant,
    reason = "object events are nearly every message: boxing them would allocate once more per \
              object for the rare small ones' sake"
)]
pub enum Message {
    /// An event for objects of a kind.
    Objects(ResourceKind, Event<AnyResource>),
    /// A CRD event (boxed: a CRD is far larger than the objects most messages carry).
    Crd(Box<Event<CustomResourceDefinition>>),
    /// An object that does not decode (skipped; the rest of its kind is still watched).
    Undecodable {
        /// Its kind.
        kind: ResourceKind,
        /// `namespace/name`.
        name: String,
        /// Why.
        error: gamma_model::DecodeError,
    },
    /// A watch error (the watcher retries with backoff).
    WatchError(ResourceKind, String),
}

/// A `DynamicObject` as the API's JSON value (it keeps every field the server sent). Its
/// serialization cannot fail (string keys only); if it did, `Null` decodes as "not an object".
pub(crate) fn to_value(object: DynamicObject) -> serde_json::Value {
    serde_json::to_value(object).unwrap_or_default()
}

/// Decodes an object of `kind` read from the API server (watched at `api_version`, which is
/// filled in with the kind when the server left the type out). The error names the object.
pub fn decode_object(
    kind: ResourceKind,
    api_version: &str,
    object: DynamicObject,
) -> Result<AnyResource, (String, gamma_model::DecodeError)> {
    let name = format!(
        "{}/{}",
        object.metadata.namespace.as_deref().unwrap_or(""),
        object.metadata.name.as_deref().unwrap_or("")
    );
    let mut value = to_value(object);
    if let serde_json::Value::Object(map) = &mut value {
        if !map
            .get("apiVersion")
            .is_some_and(serde_json::Value::is_string)
        {
            map.insert("apiVersion".into(), api_version.into());
        }
        if !map.get("kind").is_some_and(serde_json::Value::is_string) {
            map.insert("kind".into(), kind.as_str().into());
        }
    }
    AnyResource::from_value(value).map_err(|e| (name, e))
}

/// Starts watching `kind` at `api_version` (cluster-wide, with the kind's
/// [`crate::kinds::field_selector`]); events go to `tx` until the task is aborted or `tx`
/// closes.
pub fn spawn_kind(
    client: kube::Client,
    kind: ResourceKind,
    api_version: &'static str,
    tx: mpsc::Sender<Message>,
) -> JoinHandle<()> {
    let ar = api_resource(kind, api_version);
    let api: Api<DynamicObject> = Api::all_with(client, &ar);
    let span = info_span!("watch", kind = kind.as_str(), api_version);
    let mut config = watcher::Config::default();
    if let Some(selector) = crate::kinds::field_selector(kind) {
        config = config.fields(selector);
    }
    tokio::spawn(
        async move {
            let mut stream = watcher(api, config).default_backoff().boxed();
            while let Some(item) = stream.next().await {
                let message = match item {
                    Err(e) => Message::WatchError(kind, e.to_string()),
                    Ok(event) => match map_event(event, |o| decode_object(kind, api_version, o)) {
                        Ok(event) => Message::Objects(kind, event),
                        Err((name, error)) => Message::Undecodable { kind, name, error },
                    },
                };
                if tx.send(message).await.is_err() {
                    return;
                }
            }
        }
        .instrument(span),
    )
}

fn watcher(
    api: Api<DynamicObject>,
    config: watcher::Config,
) -> impl futures::Stream<Item = watcher::Result<Event<DynamicObject>>> + Send {
    watcher::watcher(api, config)
}

/// Starts watching CustomResourceDefinitions.
pub fn spawn_crds(client: kube::Client, tx: mpsc::Sender<Message>) -> JoinHandle<()> {
    let api: Api<CustomResourceDefinition> = Api::all(client);
    tokio::spawn(
        async move {
            let mut stream = watcher::watcher(api, watcher::Config::default())
                .default_backoff()
                .boxed();
            while let Some(item) = stream.next().await {
                let message = match item {
                    Ok(e) => Message::Crd(Box::new(e)),
                    Err(e) => {
                        warn!(error = %e, "CRD watch error");
                        continue;
                    }
                };
                if tx.send(message).await.is_err() {
                    return;
                }
            }
        }
        .instrument(info_span!("watch_crds")),
    )
}

fn map_event<A, B, E>(event: Event<A>, f: impl Fn(A) -> Result<B, E>) -> Result<Event<B>, E> {
    Ok(match event {
        Event::Apply(o) => Event::Apply(f(o)?),
        Event::Delete(o) => Event::Delete(f(o)?),
        Event::Init => Event::Init,
        Event::InitApply(o) => Event::InitApply(f(o)?),
        Event::InitDone => Event::InitDone,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dynamic_objects_decode_with_their_type_filled_in_and_unknown_enums_kept() {
        let object: DynamicObject = serde_json::from_value(serde_json::json!({
            "metadata": {"name": "web", "namespace": "shop", "resourceVersion": "9"},
            "spec": {"parentRefs": [{"group": "", "kind": "Service", "name": "web"}],
                     "rules": [{"matches": [{"path": {"type": "Glob", "value": "/x"}}]}]},
        }))
        .unwrap();
        let r = decode_object(
            ResourceKind::HttpRoute,
            "gateway.networking.k8s.io/v1",
            object,
        )
        .unwrap();
        let AnyResource::HttpRoute(route) = r else {
            panic!("an HTTPRoute")
        };
        assert_eq!(route.metadata.resource_version.as_deref(), Some("9"));
        let rules = route.spec.rules.as_ref().unwrap();
        let path = rules[0].matches.as_ref().unwrap()[0].path.as_ref().unwrap();
        assert!(format!("{:?}", path.type_).contains("Glob"));
    }
}
