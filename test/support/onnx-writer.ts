/**
 * A small protobuf encoder for the part of the ONNX schema (onnx.proto3) a tiny test model needs:
 * ModelProto, GraphProto, NodeProto, TensorProto, ValueInfoProto. Field numbers follow onnx.proto.
 */

type Bytes = Uint8Array;

function varint(n: number | bigint): number[] {
  let v = BigInt(n);
  if (v < 0n) v += 1n << 64n; // two's complement, as protobuf encodes negative int64
  const out: number[] = [];
  do {
    let byte = Number(v & 0x7fn);
    v >>= 7n;
    if (v !== 0n) byte |= 0x80;
    out.push(byte);
  } while (v !== 0n);
  return out;
}

const key = (field: number, wire: number): number[] => varint((field << 3) | wire);

class Message {
  private chunks: Bytes[] = [];
  int(field: number, value: number | bigint): this {
    this.chunks.push(Uint8Array.from([...key(field, 0), ...varint(value)]));
    return this;
  }
  bytes(field: number, value: Bytes): this {
    this.chunks.push(Uint8Array.from([...key(field, 2), ...varint(value.length)]), value);
    return this;
  }
  string(field: number, value: string): this {
    return this.bytes(field, new TextEncoder().encode(value));
  }
  message(field: number, value: Message): this {
    return this.bytes(field, value.encode());
  }
  encode(): Bytes {
    return Buffer.concat(this.chunks);
  }
}

export const ElemType = { FLOAT: 1, INT64: 7 } as const;

export interface ValueInfo { name: string; elemType: number; dims: (number | string)[] }
export interface Node { op: string; inputs: string[]; outputs: string[]; name: string; domain?: string; attributes?: { name: string; int?: number }[] }
export interface Initializer { name: string; elemType: number; dims: number[]; raw: Bytes }

function valueInfo(v: ValueInfo): Message {
  const shape = new Message();
  for (const d of v.dims) shape.message(1, typeof d === 'number' ? new Message().int(1, d) : new Message().string(2, d));
  const tensorType = new Message().int(1, v.elemType).message(2, shape);
  return new Message().string(1, v.name).message(2, new Message().message(1, tensorType));
}

function node(n: Node): Message {
  const m = new Message();
  for (const i of n.inputs) m.string(1, i);
  for (const o of n.outputs) m.string(2, o);
  m.string(3, n.name).string(4, n.op);
  // AttributeProto: name=1, i=3, type=20 (INT=2)
  for (const a of n.attributes ?? []) m.message(5, new Message().string(1, a.name).int(3, a.int ?? 0).int(20, 2));
  if (n.domain) m.string(7, n.domain);
  return m;
}

function tensor(t: Initializer): Message {
  const m = new Message();
  for (const d of t.dims) m.int(1, d);
  return m.int(2, t.elemType).string(8, t.name).bytes(9, t.raw);
}

/** Encodes a model: opset 17, IR version 8. */
export function encodeModel(graph: { name: string; nodes: Node[]; initializers: Initializer[]; inputs: ValueInfo[]; outputs: ValueInfo[] }): Bytes {
  const g = new Message();
  for (const n of graph.nodes) g.message(1, node(n));
  g.string(2, graph.name);
  for (const t of graph.initializers) g.message(5, tensor(t));
  for (const i of graph.inputs) g.message(11, valueInfo(i));
  for (const o of graph.outputs) g.message(12, valueInfo(o));
  return new Message()
    .int(1, 8)
    .string(2, 'workbench-test')
    .message(7, g)
    .message(8, new Message().string(1, '').int(2, 17))
    .encode();
}
