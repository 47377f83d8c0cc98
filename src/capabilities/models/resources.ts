/** What the machine has to spend on a local model, and whether a model of some size fits. */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';

interface Gpu { name: string; memoryBytes: number }

/** An NVIDIA GPU when its driver tool answers (the runtime's CPU build does not use it yet). */
function nvidiaGpu(): Promise<Gpu[]> {
  if (!existsSync('/dev/nvidia0')) return Promise.resolve([]);
  return new Promise((resolve) => {
    execFile('nvidia-smi', ['--query-gpu=name,memory.total', '--format=csv,noheader,nounits'], { timeout: 3000 }, (err, out) => {
      if (err) return resolve([]);
      resolve(out.trim().split('\n').filter(Boolean).map((l) => {
        const [name, mib] = l.split(',').map((s) => s.trim());
        return { name, memoryBytes: Number(mib) * 1024 * 1024 };
      }));
    });
  });
}

/** Memory a model of `bytes` of weights needs to run: the weights, the runtime's overhead and a working margin. */
const memoryNeeded = (bytes: number) => Math.round(bytes * 1.3 + 300 * 1024 * 1024);

export async function machineResources(modelsRoot: string) {
  await fs.mkdir(modelsRoot, { recursive: true }).catch(() => undefined);
  const st = await fs.statfs(modelsRoot).catch(() => undefined);
  const cpus = os.cpus();
  return {
    memory: { totalBytes: os.totalmem(), freeBytes: os.freemem() },
    cpu: { cores: cpus.length, model: cpus[0]?.model ?? 'unknown', arch: process.arch },
    gpus: await nvidiaGpu(),
    disk: { path: modelsRoot, freeBytes: st ? st.bavail * st.bsize : null },
  };
}

/** Whether a model of `bytes` fits: in memory (free now, and total) and on disk where models live. */
export function fits(bytes: number, r: Awaited<ReturnType<typeof machineResources>>, onDisk = false) {
  const need = memoryNeeded(bytes);
  const memory = need <= r.memory.totalBytes * 0.8;
  const disk = onDisk || r.disk.freeBytes === null || bytes <= r.disk.freeBytes;
  const reason = !memory
    ? `needs about ${mb(need)} of memory; this machine has ${mb(r.memory.totalBytes)}`
    : !disk
      ? `needs ${mb(bytes)} of disk; ${mb(r.disk.freeBytes ?? 0)} is free where models live`
      : need > r.memory.freeBytes
        ? `fits, but only ${mb(r.memory.freeBytes)} of memory is free now (about ${mb(need)} needed)`
        : `fits: about ${mb(need)} of memory`;
  return { fits: memory && disk, memoryNeededBytes: need, reason };
}

const mb = (n: number) => `${Math.round(n / 1024 / 1024)} MB`;
