//! Server-side dry-run creates with `fieldValidation=Strict`, as `kubectl create
//! --dry-run=server --validate=strict` sends them.

use kube::api::PostParams;
use serde_json::Value;

/// What the API server answered.
#[derive(Clone, Debug)]
pub enum Answer {
    /// `201 Created` (dry run: nothing stored).
    Accepted,
    /// Refused: the HTTP code and the status message.
    Refused(u16, String),
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

/// Sends `object` as a dry-run create to `url`. kube's `PostParams` has no field-validation
/// setting, so the query parameter is added to the request kube builds.
pub async fn dry_run_create(client: &kube::Client, url: &str, object: &Value) -> Answer {
    let params = PostParams {
        dry_run: true,
        field_manager: Some("gamma-differential".into()),
    };
    let body = serde_json::to_vec(object).unwrap();
    let mut last = None;
    // A transient failure (connection reset, a 429/5xx under load) is retried; a refusal is an
    // answer.
    for _ in 0..3 {
        let mut request = kube::core::Request::new(url)
            .create(&params, body.clone())
            .unwrap();
        let uri = format!("{}&fieldValidation=Strict", request.uri());
        *request.uri_mut() = uri.parse().unwrap();
        match client.request_text(request).await {
            Ok(_) => return Answer::Accepted,
            Err(kube::Error::Api(status)) if status.code != 429 && status.code < 500 => {
                return Answer::Refused(status.code, status.message);
            }
            Err(e) => last = Some(e),
        }
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
    panic!("dry run to {url} failed: {last:?}");
}
