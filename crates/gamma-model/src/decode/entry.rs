//! The entry points: [`decode`], [`decode_with`] and [`decode_documents`]. Exported at the
//! crate root.

use super::{Context, DecodeError, DecodeOptions, Decoded, Format, format_of, json, yaml};
use crate::resource::AnyResource;

/// Decodes every object in `input`, YAML or JSON, with the default [`DecodeOptions`]. Empty YAML
/// documents are skipped. Stops at the first error.
///
/// ```
/// let docs = gamma_model::decode(r#"
/// apiVersion: gateway.networking.k8s.io/v1
/// kind: HTTPRoute
/// metadata: {name: web, namespace: shop}
/// spec:
///   parentRefs: [{group: "", kind: Service, name: web}]
/// "#).unwrap();
/// assert_eq!(docs.len(), 1);
/// assert_eq!(docs[0].kind(), gamma_model::ResourceKind::HttpRoute);
/// ```
pub fn decode(input: &str) -> Result<Vec<AnyResource>, DecodeError> {
    decode_with(input, &DecodeOptions::default())
}

/// Decodes every object in `input` with explicit [`DecodeOptions`].
pub fn decode_with(input: &str, options: &DecodeOptions) -> Result<Vec<AnyResource>, DecodeError> {
    decode_documents(input, options).map(Decoded::into_resources)
}

/// Decodes every object in `input`, keeping where each one starts.
///
/// ```
/// use gamma_model::{DecodeOptions, decode_documents};
/// let input = "apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n---\n\
///              apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\n---\n\
///              apiVersion: v1\nkind: Namespace\nmetadata: {name: b}\n";
/// let decoded = decode_documents(input, &DecodeOptions::skipping_unsupported())?;
/// let lines: Vec<_> = decoded.documents.iter().map(|d| d.at.line).collect();
/// assert_eq!(lines, [Some(1), Some(9)]);
/// assert_eq!(decoded.skipped[0].kind, "Deployment");
/// assert_eq!(decoded.skipped[0].at.document, 1);
/// # Ok::<(), gamma_model::DecodeError>(())
/// ```
pub fn decode_documents(input: &str, options: &DecodeOptions) -> Result<Decoded, DecodeError> {
    if input.len() > options.max_input_bytes {
        return Err(DecodeError::TooLarge {
            size: input.len(),
            limit: options.max_input_bytes,
        });
    }
    let input = input.strip_prefix('\u{feff}').unwrap_or(input);
    let format = format_of(input);
    let raw = match format {
        Format::Json => json::parse(input, options)?,
        Format::Yaml => yaml::parse(input, options)?,
    };
    let ctx = Context {
        input,
        options,
        format,
    };
    let mut out = Decoded::default();
    for doc in raw {
        ctx.document(doc, &mut out)?;
    }
    Ok(out)
}
