import type { OtlpAnyValue, OtlpKeyValue, OtlpTraceRequest } from './otlp-collector.js';

/**
 * Reads an OTLP `ExportTraceServiceRequest` in protobuf's wire format into the shape of its JSON
 * encoding (opentelemetry-proto, trace/v1 and common/v1), for the fields the collector stand-in
 * keeps. Hand-written so the stand-in needs no protobuf library.
 */

type Field = { number: number; wire: 0; value: bigint } | { number: number; wire: 1 | 5; value: Buffer } | { number: number; wire: 2; value: Buffer };

function readVarint(buffer: Buffer, at: { offset: number }): bigint {
  let result = 0n;
  let shift = 0n;
  for (;;) {
    const byte = buffer[at.offset++];
    if (byte === undefined) throw new Error('truncated varint');
    result |= BigInt(byte & 0x7f) << shift;
    if ((byte & 0x80) === 0) return result;
    shift += 7n;
  }
}

function fields(buffer: Buffer): Field[] {
  const at = { offset: 0 };
  const out: Field[] = [];
  while (at.offset < buffer.length) {
    const tag = Number(readVarint(buffer, at));
    const number = tag >>> 3;
    const wire = tag & 7;
    if (wire === 0) {
      out.push({ number, wire, value: readVarint(buffer, at) });
    } else if (wire === 1 || wire === 5) {
      const size = wire === 1 ? 8 : 4;
      out.push({ number, wire, value: buffer.subarray(at.offset, at.offset + size) });
      at.offset += size;
    } else if (wire === 2) {
      const length = Number(readVarint(buffer, at));
      out.push({ number, wire, value: buffer.subarray(at.offset, at.offset + length) });
      at.offset += length;
    } else {
      throw new Error(`unsupported wire type ${wire}`);
    }
  }
  return out;
}

const bytesOf = (list: Field[], number: number): Buffer[] => list.flatMap((field) => (field.number === number && field.wire === 2 ? [field.value] : []));
const firstBytes = (list: Field[], number: number): Buffer | undefined => bytesOf(list, number)[0];
const text = (list: Field[], number: number): string | undefined => firstBytes(list, number)?.toString('utf8');
const varint = (list: Field[], number: number): bigint | undefined => {
  const field = list.find((candidate) => candidate.number === number && candidate.wire === 0);
  return field?.wire === 0 ? field.value : undefined;
};

function anyValue(buffer: Buffer): OtlpAnyValue {
  const list = fields(buffer);
  const field = list[0];
  if (field === undefined) return {};
  switch (field.number) {
    case 1:
      return { stringValue: field.wire === 2 ? field.value.toString('utf8') : '' };
    case 2:
      return { boolValue: field.wire === 0 && field.value !== 0n };
    case 3:
      return { intValue: field.wire === 0 ? BigInt.asIntN(64, field.value).toString() : '0' };
    case 4:
      return { doubleValue: field.wire === 1 ? field.value.readDoubleLE(0) : 0 };
    case 5:
      return { arrayValue: { values: bytesOf(fields(field.value as Buffer), 1).map(anyValue) } };
    case 6:
      return { kvlistValue: { values: bytesOf(fields(field.value as Buffer), 1).map(keyValue) } };
    default:
      return { bytesValue: (field.value as Buffer).toString('base64') };
  }
}

function keyValue(buffer: Buffer): OtlpKeyValue {
  const list = fields(buffer);
  const value = firstBytes(list, 2);
  return { key: text(list, 1) ?? '', ...(value === undefined ? {} : { value: anyValue(value) }) };
}

const hex = (buffer: Buffer | undefined): string => buffer?.toString('hex') ?? '';

export function decodeTraceRequest(body: Buffer): OtlpTraceRequest {
  return {
    resourceSpans: bytesOf(fields(body), 1).map((resourceSpans) => {
      const outer = fields(resourceSpans);
      const resource = firstBytes(outer, 1);
      return {
        resource: { attributes: resource === undefined ? [] : bytesOf(fields(resource), 1).map(keyValue) },
        scopeSpans: bytesOf(outer, 2).map((scopeSpans) => {
          const inner = fields(scopeSpans);
          const scope = firstBytes(inner, 1);
          const scopeName = scope === undefined ? undefined : text(fields(scope), 1);
          return {
            ...(scopeName === undefined ? {} : { scope: { name: scopeName } }),
            spans: bytesOf(inner, 2).map((spanBytes) => {
              const span = fields(spanBytes);
              const status = firstBytes(span, 15);
              const statusFields = status === undefined ? [] : fields(status);
              const statusMessage = text(statusFields, 2);
              return {
                traceId: hex(firstBytes(span, 1)),
                spanId: hex(firstBytes(span, 2)),
                parentSpanId: hex(firstBytes(span, 4)),
                name: text(span, 5) ?? '',
                kind: Number(varint(span, 6) ?? 0n),
                attributes: bytesOf(span, 9).map(keyValue),
                events: bytesOf(span, 11).map((eventBytes) => {
                  const event = fields(eventBytes);
                  return { name: text(event, 2) ?? '', attributes: bytesOf(event, 3).map(keyValue) };
                }),
                status: { code: Number(varint(statusFields, 3) ?? 0n), ...(statusMessage === undefined ? {} : { message: statusMessage }) },
              };
            }),
          };
        }),
      };
    }),
  };
}
