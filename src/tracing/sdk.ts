import { context, propagation, trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';

/**
 * The OpenTelemetry SDK, loaded only when traces are on (tracing.ts startTracing). The OTLP/HTTP exporter
 * reads its own standard variables (OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT,
 * OTEL_EXPORTER_OTLP_HEADERS, OTEL_EXPORTER_OTLP_TIMEOUT ...), the batch processor OTEL_BSP_*, the sampler
 * OTEL_TRACES_SAMPLER; the resource takes OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES, with `atelier`
 * as the service name when none is given.
 */
export function startSdk(processRole: string): { flush(): Promise<void>; shutdown(): Promise<void> } {
  const ours = resourceFromAttributes({ 'service.name': 'atelier', 'atelier.process': processRole, 'process.pid': process.pid });
  // Later merges win: the operator's OTEL_SERVICE_NAME / OTEL_RESOURCE_ATTRIBUTES over our defaults.
  const resource = defaultResource().merge(ours).merge(detectResources({ detectors: [envDetector] }));
  const provider = new NodeTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())] });
  // The AsyncLocalStorage context manager (the active span follows awaits) and the W3C propagator.
  provider.register();
  return {
    flush: () => provider.forceFlush(),
    shutdown: async () => {
      await provider.shutdown();
      // Unregistered, so a later start in the same process (tests) registers afresh.
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}
