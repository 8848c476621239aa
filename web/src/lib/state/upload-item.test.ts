import { describe, expect, it } from 'vitest';
import { looksLikeJsonTrace, uploadItem } from './upload-item';

const TRACE = '{"displayTimeUnit":"ns","traceEvents":[{"ph":"X","name":"fusion","ts":1,"dur":2,"pid":1,"tid":1}]}';
/** A gzipped JSON trace, as JAX's profiler writes `*.trace.json.gz`. */
const gzipped = async () => new Uint8Array(await new Response(new Blob([TRACE]).stream().pipeThrough(new CompressionStream('gzip'))).arrayBuffer());
/** XSpace bytes: a protobuf, field 1 (planes) length-delimited, not UTF-8. */
const XSPACE = new Uint8Array([0x0a, 0x84, 0x01, 0x08, 0xff, 0x01, 0x12, 0x0b]);
const file = (name: string, bytes: Uint8Array<ArrayBuffer> | string) => new File([bytes], name);

describe('uploadItem', () => {
  it('sends gzipped JSON and xplane.pb traces as raw bodies, the file itself', async () => {
    const gz = file('mlp.trace.json.gz', await gzipped());
    const a = await uploadItem(gz);
    expect(a).toMatchObject({ title: 'mlp.trace.json.gz', contentType: 'application/gzip' });
    expect('body' in a && a.body).toBe(gz);
    expect(await uploadItem(file('mlp.xplane.pb', XSPACE))).toMatchObject({ contentType: 'application/x-protobuf' });
  });

  it('knows gzip by its magic and binary by its bytes, whatever the name', async () => {
    expect(await uploadItem(file('profile', await gzipped()))).toMatchObject({ contentType: 'application/gzip' });
    expect(await uploadItem(file('dump.txt', new Uint8Array([0x0a, 0xff, 0xfe, 0x00])))).toMatchObject({ contentType: 'application/octet-stream' });
  });

  it('sends a .json that begins like a Perfetto trace raw, and other JSON and dumps as text', async () => {
    expect(await uploadItem(file('t.json', '{"displayTimeUnit":"ns","traceEvents":[{"ph":"X"}]}'))).toMatchObject({ contentType: 'application/octet-stream' });
    expect(await uploadItem(file('config.json', '{"a": 1}'))).toEqual({ title: 'config.json', text: '{"a": 1}' });
    const hlo = 'HloModule jit_f, is_scheduled=true\n\nENTRY %main { ROOT %p = f32[] parameter(0) } // é\n';
    expect(await uploadItem(file('f.hlo.txt', hlo))).toEqual({ title: 'f.hlo.txt', text: hlo });
  });

  it('allows a character cut by the sniffed slice and finds invalid bytes after it', async () => {
    const text = `${'a'.repeat(64 * 1024 - 1)}é tail`;
    expect(await uploadItem(file('long.txt', text))).toEqual({ title: 'long.txt', text });
    const bad = new Uint8Array(70 * 1024).fill(0x61);
    bad[69 * 1024] = 0xff;
    expect(await uploadItem(file('late.bin', bad))).toMatchObject({ contentType: 'application/octet-stream' });
  });

  it('tells a trace head from other JSON', () => {
    expect(looksLikeJsonTrace('\uFEFF {"traceEvents": [')).toBe(true);
    expect(looksLikeJsonTrace('[{"name":"x","ph":"X","ts":1}')).toBe(true);
    expect(looksLikeJsonTrace('[1, 2]')).toBe(false);
    expect(looksLikeJsonTrace('{"events": []}')).toBe(false);
  });
});
