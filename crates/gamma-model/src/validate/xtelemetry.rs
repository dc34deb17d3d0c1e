//! XTelemetryPolicy validation (the experimental CRD
//! `gateway.networking.x-k8s.io_xtelemetrypolicies.yaml`, v1.7): every schema marker and CEL
//! rule of its spec. The mode rules read the mode after defaulting (`ImplementationDefault`).

use super::common;
use super::patterns as p;
use super::{ErrorKind, Errors, FieldPath, Validate, ValidateOptions};
use crate::xtelemetry::{AttributeSourceType, TracingConfig, TracingMode, XTelemetryPolicy};

impl Validate for XTelemetryPolicy {
    fn collect_errors(&self, path: &FieldPath, opts: &ValidateOptions, errors: &mut Errors) {
        common::metadata(&self.metadata, path, true, errors);
        let spath = path.field("spec");
        let s = &self.spec;
        common::policy_target_refs(&s.target_refs, &spath.field("targetRefs"), errors);
        match &s.tracing {
            Some(t) => tracing(t, &spath.field("tracing"), opts, errors),
            None => errors.rule(spath, "at least one of the fields in [tracing] must be set"),
        }
    }
}

fn tracing(t: &TracingConfig, path: &FieldPath, opts: &ValidateOptions, errors: &mut Errors) {
    if let Some(mode) = &t.mode {
        errors.known(&path.field("mode"), mode);
    }
    let enabled = t.effective_mode() == TracingMode::Enabled;
    if enabled != t.provider.is_some() {
        errors.rule(
            path.clone(),
            "provider is required when mode is Enabled, and must be empty otherwise",
        );
    }
    // `has(self.x) ? self.mode == 'Enabled' : true`, in the CRD's order.
    let only_when_enabled = [
        ("samplingRate", t.sampling_rate.is_some()),
        ("parentBasedSampling", t.parent_based_sampling.is_some()),
        ("serviceName", t.service_name.is_some()),
        ("spanName", t.span_name.is_some()),
        ("attributes", t.attributes.is_some()),
    ];
    for (field, present) in only_when_enabled {
        if present && !enabled {
            errors.rule(
                path.clone(),
                format!("{field} can only be set when mode is Enabled"),
            );
        }
    }
    if let Some(provider) = &t.provider {
        let ppath = path.field("provider");
        common::backend_object_reference(
            &provider.backend_ref,
            &ppath.field("backendRef"),
            opts,
            errors,
        );
        if let Some(headers) = &provider.headers {
            let hpath = ppath.field("headers");
            errors.items(&hpath, headers.len(), 0, 16);
            for (i, h) in headers.iter().enumerate() {
                let ipath = hpath.index(i);
                header_name(&h.name, &ipath.field("name"), errors);
                let vpath = ipath.field("value");
                if errors.length(&vpath, &h.value, 1, 4096) {
                    errors.pattern(
                        &vpath,
                        &h.value,
                        p::is_header_value,
                        p::HEADER_VALUE_PATTERN,
                    );
                }
            }
            duplicates(headers.iter().map(|h| h.name.as_str()), &hpath, errors);
        }
    }
    if let Some(rate) = &t.sampling_rate {
        common::fraction(rate, &path.field("samplingRate"), errors);
    }
    if let Some(pbs) = &t.parent_based_sampling {
        let bpath = path.field("parentBasedSampling");
        if let Some(mode) = &pbs.mode {
            errors.known(&bpath.field("mode"), mode);
        }
        if let Some(rate) = &pbs.sampling_rate {
            common::fraction(rate, &bpath.field("samplingRate"), errors);
            if pbs.mode != Some(TracingMode::Enabled) {
                errors.rule(bpath, "samplingRate can only be set when mode is Enabled");
            }
        }
    }
    if let Some(name) = &t.service_name {
        let npath = path.field("serviceName");
        if errors.length(&npath, name, 1, 253) {
            errors.pattern(
                &npath,
                name,
                p::is_telemetry_name,
                p::TELEMETRY_NAME_PATTERN,
            );
        }
    }
    if let Some(name) = &t.span_name {
        let npath = path.field("spanName");
        if errors.length(&npath, name, 1, 256) {
            errors.pattern(&npath, name, p::is_span_name, p::SPAN_NAME_PATTERN);
        }
    }
    if let Some(attributes) = &t.attributes {
        let apath = path.field("attributes");
        for (i, a) in attributes.iter().enumerate() {
            let ipath = apath.index(i);
            let npath = ipath.field("name");
            if errors.length(&npath, &a.name, 1, 256) {
                errors.pattern(
                    &npath,
                    &a.name,
                    p::is_telemetry_name,
                    p::TELEMETRY_NAME_PATTERN,
                );
            }
            errors.known(&ipath.field("sourceType"), &a.source_type);
            if let Some(h) = &a.header_name {
                header_name(h, &ipath.field("headerName"), errors);
            }
            if let Some(v) = &a.literal_value {
                errors.length(&ipath.field("literalValue"), v, 1, 1024);
            }
            if let Some(k) = &a.attribute_key {
                let kpath = ipath.field("attributeKey");
                if errors.length(&kpath, k, 1, 256) {
                    errors.pattern(&kpath, k, p::is_attribute_key, p::ATTRIBUTE_KEY_PATTERN);
                }
            }
            // `self.sourceType == 'X' ? has(self.x) : !has(self.x)`, for each source.
            let sources = [
                (
                    AttributeSourceType::Header,
                    "headerName",
                    a.header_name.is_some(),
                ),
                (
                    AttributeSourceType::Literal,
                    "literalValue",
                    a.literal_value.is_some(),
                ),
                (
                    AttributeSourceType::Attribute,
                    "attributeKey",
                    a.attribute_key.is_some(),
                ),
            ];
            for (source, field, present) in sources {
                if (a.source_type == source) != present {
                    errors.rule(
                        ipath.clone(),
                        format!(
                            "{field} is required when sourceType is {}, and must be empty otherwise",
                            source.as_str()
                        ),
                    );
                }
            }
        }
        duplicates(attributes.iter().map(|a| a.name.as_str()), &apath, errors);
    }
}

/// A header name: 1 to 256 characters of the RFC 7230 token pattern.
fn header_name(name: &str, path: &FieldPath, errors: &mut Errors) {
    if errors.length(path, name, 1, 256) {
        errors.pattern(path, name, p::is_header_name, p::HEADER_NAME_PATTERN);
    }
}

/// `x-kubernetes-list-type: map` keyed by `name`: a repeated key is a duplicate at its index.
fn duplicates<'a>(names: impl Iterator<Item = &'a str>, path: &FieldPath, errors: &mut Errors) {
    let names: Vec<&str> = names.collect();
    for (i, name) in names.iter().enumerate() {
        if names.iter().take(i).any(|n| n == name) {
            errors.push(
                path.index(i),
                ErrorKind::Duplicate {
                    value: format!("{{\"name\":\"{name}\"}}"),
                },
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::AnyResource;
    use crate::validate::{Bundle, Channel, Release, ValidateOptions};

    fn errors(spec: &str) -> Vec<String> {
        let text = format!(
            "apiVersion: gateway.networking.x-k8s.io/v1alpha1\nkind: XTelemetryPolicy\n\
             metadata: {{name: p, namespace: ns}}\nspec: {spec}\n"
        );
        let [object] = crate::decode(&text).unwrap().try_into().unwrap();
        let AnyResource::XTelemetryPolicy(policy) = object else {
            unreachable!()
        };
        let opts = ValidateOptions::bundle(Bundle::new(Release::V1_7, Channel::Experimental));
        match crate::Validate::validate_with(&policy, &opts) {
            Ok(()) => Vec::new(),
            Err(e) => e.errors().iter().map(ToString::to_string).collect(),
        }
    }

    const TARGET: &str = "targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: g}]";

    // The CRD's rules: tracing is required; provider iff mode Enabled; the other fields only
    // when Enabled (the mode defaults to ImplementationDefault).
    #[test]
    fn tracing_fields_follow_the_mode() {
        assert_eq!(
            errors(&format!("{{{TARGET}}}")),
            ["spec: at least one of the fields in [tracing] must be set"]
        );
        assert!(errors(&format!("{{{TARGET}, tracing: {{}}}}")).is_empty());
        let enabled_without_provider = errors(&format!("{{{TARGET}, tracing: {{mode: Enabled}}}}"));
        assert_eq!(
            enabled_without_provider.len(),
            1,
            "{enabled_without_provider:?}"
        );
        assert!(enabled_without_provider[0].contains("provider is required when mode is Enabled"));
        let defaulted_with_rate = errors(&format!(
            "{{{TARGET}, tracing: {{samplingRate: {{numerator: 1}}, spanName: a}}}}"
        ));
        assert_eq!(defaulted_with_rate.len(), 2, "{defaulted_with_rate:?}");
        assert!(
            defaulted_with_rate[0].contains("samplingRate can only be set when mode is Enabled")
        );
        assert!(errors(&format!(
            "{{{TARGET}, tracing: {{mode: Enabled, provider: {{backendRef: {{name: otel, port: 4317}}}}, \
             samplingRate: {{numerator: 1, denominator: 1000}}, spanName: gateway request, \
             attributes: [{{name: env, sourceType: Literal, literalValue: prod}}]}}}}"
        ))
        .is_empty());
    }

    // Attribute sources: the field of the source type is required, the others forbidden;
    // names are unique; a Service collector needs a port.
    #[test]
    fn attributes_and_provider_rules() {
        let found = errors(&format!(
            "{{{TARGET}, tracing: {{mode: Enabled, provider: {{backendRef: {{name: otel}}}}, \
             attributes: [{{name: a, sourceType: Header}}, {{name: a, sourceType: Literal, literalValue: x, headerName: h}}]}}}}"
        ));
        let text = found.join("\n");
        assert!(
            text.contains("spec.tracing.provider.backendRef: Must have port for Service reference"),
            "{text}"
        );
        assert!(
            text.contains(
                "spec.tracing.attributes[0]: headerName is required when sourceType is Header"
            ),
            "{text}"
        );
        assert!(
            text.contains(
                "spec.tracing.attributes[1]: headerName is required when sourceType is Header"
            ),
            "{text}"
        );
        assert!(
            text.contains("spec.tracing.attributes[1]: duplicate value"),
            "{text}"
        );
        assert_eq!(found.len(), 4, "{text}");
    }
}
