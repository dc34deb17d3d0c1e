//! Server-side dry-run creates with `fieldValidation=Strict`, as `kubectl create
//! --dry-run=server --validate=strict` sends them.

use kube::api::{Patch, PatchParams, PostParams};
use serde_json::Value;

/// What the API server answered.
#[derive(Clone, Debug)]
pub enum Answer {
    /// `201 Created` (dry run: nothing stored).
    Accepted,
    /// Refused: the HTTP code, the status message (printed with a disagreement) and the
    /// causes the status lists.
    Refused(u16, #[allow(dead_code)] String, Vec<Cause>),
}

/// One cause of a refusal (`details.causes[]` of the API server's `Status`).
#[derive(Clone, Debug)]
pub struct Cause {
    /// The field path (`spec.rules[0].filters`), empty when the status names none.
    pub field: String,
    /// What is wrong (`Invalid value: "array": CORS filter cannot be repeated`).
    pub message: String,
}

/// The collection URL of a resource (`/apis/g/v/namespaces/default/plural`).
pub fn collection(group: &str, version: &str, plural: &str, namespace: Option<&str>) -> String {
    let root = if group.is_empty() {
        format!("/api/{version}")
    } else {
        format!("/apis/{group}/{version}")
    };
    match namespace {
        Some(ns) => format!("{root}/namespaces/{ns}/{plural}"),
        None => format!("{root}/{plural}"),
    }
}

/// The name of the one object of a kind that status cases patch: created for real (a dry-run
/// status write needs an object to write to), never the name of a dry-run create.
pub const STATUS_TARGET: &str = "status-target";

/// Sends `object` as a dry-run create to `url`. kube's `PostParams` has no field-validation
/// setting, so the query parameter is added to the request kube builds.
pub async fn dry_run_create(client: &kube::Client, url: &str, object: &Value) -> Answer {
    let params = PostParams {
        dry_run: true,
        field_manager: Some("gamma-differential".into()),
    };
    let body = serde_json::to_vec(object).unwrap();
    send(client, url, &Write::Create(&params, body)).await
}

/// Sends `object`'s `status` as a dry-run merge patch of the status subresource of
/// [`STATUS_TARGET`] in the collection `url`: the API server validates status only on writes
/// to the subresource (a create drops it).
pub async fn dry_run_status(client: &kube::Client, url: &str, object: &Value) -> Answer {
    let params = PatchParams {
        dry_run: true,
        field_manager: Some("gamma-differential".into()),
        ..PatchParams::default()
    };
    let patch = Patch::Merge(serde_json::json!({"status": object["status"]}));
    send(client, url, &Write::Status(&params, &patch)).await
}

/// The write a case sends.
enum Write<'a> {
    Create(&'a PostParams, Vec<u8>),
    Status(&'a PatchParams, &'a Patch<Value>),
}

/// Creates `object` (named [`STATUS_TARGET`]) for real, unless it exists: the object status
/// cases patch.
pub async fn create_status_target(client: &kube::Client, url: &str, object: &Value) {
    let mut object = object.clone();
    object["metadata"]["name"] = STATUS_TARGET.into();
    object.as_object_mut().unwrap().remove("status");
    let body = serde_json::to_vec(&object).unwrap();
    let request = kube::core::Request::new(url)
        .create(&PostParams::default(), body)
        .unwrap();
    match client.request_text(request).await {
        Ok(_) => {}
        Err(kube::Error::Api(status)) if status.code == 409 => {}
        Err(e) => panic!("creating {STATUS_TARGET} in {url}: {e}"),
    }
}

/// Sends `write` to `url` (with `fieldValidation=Strict` added), retrying transient failures.
async fn send(client: &kube::Client, url: &str, write: &Write<'_>) -> Answer {
    let mut last = None;
    // A transient failure (connection reset, a 429/5xx under load) is retried; a refusal is an
    // answer.
    for _ in 0..3 {
        let request = kube::core::Request::new(url);
        let mut request = match write {
            Write::Create(params, body) => request.create(params, body.clone()),
            Write::Status(params, patch) => {
                request.patch_subresource("status", STATUS_TARGET, params, patch)
            }
        }
        .unwrap();
        let uri = format!("{}&fieldValidation=Strict", request.uri());
        *request.uri_mut() = uri.parse().unwrap();
        match client.request_text(request).await {
            Ok(_) => return Answer::Accepted,
            Err(kube::Error::Api(status)) if status.code != 429 && status.code < 500 => {
                let causes = status
                    .details
                    .iter()
                    .flat_map(|d| &d.causes)
                    .map(|c| Cause {
                        field: c.field.clone(),
                        message: c.message.clone(),
                    })
                    .collect();
                return Answer::Refused(status.code, status.message, causes);
            }
            Err(e) => last = Some(e),
        }
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
    panic!("dry run to {url} failed: {last:?}");
}

/// Sends `object` as a dry-run create to `url` (strict field validation) and returns the object
/// as the API server would store it (defaulted, its status reset), or the refusal.
#[allow(dead_code)] // used by defaulting.rs, not by every test that includes this module
pub async fn dry_run_stored(
    client: &kube::Client,
    url: &str,
    object: &Value,
) -> Result<Value, Answer> {
    let params = PostParams {
        dry_run: true,
        field_manager: Some("gamma-defaulting".into()),
    };
    let body = serde_json::to_vec(object).unwrap();
    let mut request = kube::core::Request::new(url).create(&params, body).unwrap();
    let uri = format!("{}&fieldValidation=Strict", request.uri());
    *request.uri_mut() = uri.parse().unwrap();
    match client.request_text(request).await {
        Ok(text) => Ok(serde_json::from_str(&text).unwrap()),
        Err(kube::Error::Api(status)) => {
            Err(Answer::Refused(status.code, status.message, Vec::new()))
        }
        Err(e) => panic!("dry run to {url} failed: {e}"),
    }
}

/// Replaces the status of [`STATUS_TARGET`] in `url` with `object`'s, as a dry run (a `PUT`
/// of the status subresource at the target's current resourceVersion), and returns the object
/// as the server would store it (its status defaulted), or the refusal.
#[allow(dead_code)] // used by defaulting.rs, not by every test that includes this module
pub async fn dry_run_status_stored(
    client: &kube::Client,
    url: &str,
    object: &Value,
) -> Result<Value, Answer> {
    let get = kube::core::Request::new(url)
        .get(STATUS_TARGET, &Default::default())
        .unwrap();
    let mut target: Value = match client.request_text(get).await {
        Ok(text) => serde_json::from_str(&text).unwrap(),
        // no object of this collection was accepted to write status to
        Err(e) => return Err(Answer::Refused(404, e.to_string(), Vec::new())),
    };
    target["status"] = object["status"].clone();
    let params = PostParams {
        dry_run: true,
        field_manager: Some("gamma-defaulting".into()),
    };
    let body = serde_json::to_vec(&target).unwrap();
    let mut request = kube::core::Request::new(url)
        .replace_subresource("status", STATUS_TARGET, &params, body)
        .unwrap();
    let uri = format!("{}&fieldValidation=Strict", request.uri());
    *request.uri_mut() = uri.parse().unwrap();
    match client.request_text(request).await {
        Ok(text) => Ok(serde_json::from_str(&text).unwrap()),
        Err(kube::Error::Api(status)) => {
            Err(Answer::Refused(status.code, status.message, Vec::new()))
        }
        Err(e) => panic!("dry run to {url} failed: {e}"),
    }
}
