//! OpenTelemetry export (feature `otel`): when `OTEL_EXPORTER_OTLP_ENDPOINT` is set, the
//! library's GenAI spans (`lucid::telemetry`: `invoke_agent`, `chat`, `execute_tool`) go
//! to that collector over OTLP/HTTP — protobuf, or JSON with
//! `OTEL_EXPORTER_OTLP_PROTOCOL=http/json` — batched on a thread of their own, service
//! name `lucid` unless `OTEL_SERVICE_NAME` says otherwise. Message content only with
//! `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`.

use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::{Protocol, WithExportConfig};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::trace::SdkTracerProvider;
use tracing_subscriber::Layer;
use tracing_subscriber::filter::Targets;

/// The exporter's provider: shut it down before the process exits, so the last spans
/// are sent.
pub struct Exporter(SdkTracerProvider);

impl Exporter {
    /// Sends what is batched and stops.
    pub fn shutdown(self) {
        if let Err(e) = self.0.shutdown() {
            tracing::warn!("the OpenTelemetry exporter did not shut down cleanly: {e}");
        }
    }
}

/// The tracing layer exporting the telemetry spans as `settings` say, and its provider;
/// `None` (with a warning) when the exporter cannot be built.
pub fn layer<S>(settings: &crate::config::OtelSettings) -> Option<(impl Layer<S> + use<S>, Exporter)>
where
    S: tracing::Subscriber + for<'a> tracing_subscriber::registry::LookupSpan<'a>,
{
    // The exporter's HTTP client needs the process's rustls provider.
    lucid::model::http::install_crypto_provider();
    let protocol = match settings.protocol.as_deref() {
        Some("http/json") => Protocol::HttpJson,
        _ => Protocol::HttpBinary,
    };
    let traces = format!("{}/v1/traces", settings.endpoint.trim_end_matches('/'));
    let exporter = match opentelemetry_otlp::SpanExporter::builder()
        .with_http()
        .with_protocol(protocol)
        .with_endpoint(traces)
        .build()
    {
        Ok(e) => e,
        Err(e) => {
            tracing::warn!("OpenTelemetry export is off: {e}");
            return None;
        }
    };
    let service = settings.service.clone().unwrap_or_else(|| "lucid".into());
    let provider = SdkTracerProvider::builder()
        .with_batch_exporter(exporter)
        .with_resource(Resource::builder().with_service_name(service).build())
        .build();
    let layer = tracing_opentelemetry::layer()
        .with_tracer(provider.tracer("lucid"))
        .with_filter(Targets::new().with_target(lucid::telemetry::TARGET, tracing::Level::INFO));
    Some((layer, Exporter(provider)))
}
