import { describe, expect, test } from 'bun:test';
import {
  encodeCallFrames,
  encodeFrame,
  FileWorkerProtocolError,
  FrameReader,
  MAX_CALL_PAYLOAD_BYTES,
  MAX_HEADER_BYTES,
  MAX_PAYLOAD_BYTES,
} from '../../src/file-worker/file-worker-protocol.ts';

describe('frames', () => {
  test('a header and its payload come back whole, however the bytes are cut', () => {
    const bytes = new Uint8Array([0, 1, 2, 255, 10, 13]);
    const stream = new Uint8Array([
      ...encodeFrame({ type: 'reply', id: 1, ok: true, result: { kind: 'file' } }, bytes),
      ...encodeFrame({ type: 'reply', id: 2, ok: false, error: { message: 'ü' } }),
    ]);
    for (const cut of [1, 3, 7, 8, 9, stream.length]) {
      const reader = new FrameReader();
      const frames = [];
      for (let at = 0; at < stream.length; at += cut)
        frames.push(...reader.push(stream.subarray(at, at + cut)));
      expect(frames.map((frame) => [frame.header, [...frame.payload]])).toEqual([
        [{ type: 'reply', id: 1, ok: true, result: { kind: 'file' } }, [0, 1, 2, 255, 10, 13]],
        [{ type: 'reply', id: 2, ok: false, error: { message: 'ü' } }, []],
      ]);
    }
  });

  test('a header or payload over its bound is refused before its bytes are taken in', () => {
    const prefix = (header: number, payload: number) => {
      const bytes = new Uint8Array(8);
      new DataView(bytes.buffer).setUint32(0, header);
      new DataView(bytes.buffer).setUint32(4, payload);
      return bytes;
    };
    expect(() => new FrameReader().push(prefix(MAX_HEADER_BYTES + 1, 0))).toThrow(
      new FileWorkerProtocolError(
        `a frame's header is ${MAX_HEADER_BYTES + 1} bytes, more than the ${MAX_HEADER_BYTES} a header may have`,
      ),
    );
    expect(() => new FrameReader().push(prefix(2, MAX_PAYLOAD_BYTES + 1))).toThrow(
      new FileWorkerProtocolError(
        `a frame's payload is ${MAX_PAYLOAD_BYTES + 1} bytes, more than the ${MAX_PAYLOAD_BYTES} a payload may have`,
      ),
    );
  });

  test('a header that is not JSON text is refused', () => {
    const bytes = new Uint8Array([...new Uint8Array([0, 0, 0, 2, 0, 0, 0, 0]), 0xff, 0xfe]);
    expect(() => new FrameReader().push(bytes)).toThrow("a frame's header is not JSON text");
  });
});

describe("a call's payload larger than one frame", () => {
  test('crosses as its call frame and part frames of the same id, the runs in order', () => {
    const payload = new Uint8Array(MAX_PAYLOAD_BYTES * 2 + 3);
    payload[0] = 1;
    payload[MAX_PAYLOAD_BYTES] = 2;
    payload[MAX_PAYLOAD_BYTES * 2 + 2] = 3;
    const reader = new FrameReader();
    const frames = encodeCallFrames({ type: 'call', id: 7, op: 'uploadFile' }, payload).flatMap((frame) =>
      reader.push(frame),
    );
    expect(frames.map((frame) => [frame.header, frame.payload.length])).toEqual([
      [{ type: 'call', id: 7, op: 'uploadFile', parts: 3 }, MAX_PAYLOAD_BYTES],
      [{ type: 'part', id: 7 }, MAX_PAYLOAD_BYTES],
      [{ type: 'part', id: 7 }, 3],
    ]);
    expect([frames[0]?.payload[0], frames[1]?.payload[0], frames[2]?.payload[2]]).toEqual([1, 2, 3]);
  });

  test('one frame holds a payload up to the bound, and none is one call too many', () => {
    expect(encodeCallFrames({ type: 'call', id: 1 }, new Uint8Array(10)).length).toBe(1);
    expect(encodeCallFrames({ type: 'call', id: 1 }).length).toBe(1);
    // Only its length is read before the refusal.
    const huge = Object.defineProperty(new Uint8Array(0), 'length', { value: MAX_CALL_PAYLOAD_BYTES + 1 });
    expect(() => encodeCallFrames({ type: 'call', id: 1 }, huge)).toThrow(
      new FileWorkerProtocolError(
        `a call's payload of ${MAX_CALL_PAYLOAD_BYTES + 1} bytes is more than the ${MAX_CALL_PAYLOAD_BYTES} one call may carry`,
      ),
    );
  });
});
