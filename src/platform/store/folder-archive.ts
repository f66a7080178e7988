import type { Dirent } from 'node:fs';
import { mkdir, open, readdir, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip, createGzip } from 'node:zlib';
import tar from 'tar-stream';

/**
 * What goes into an archive, named by its path inside it (`/` between folders). Archives hold
 * a store's folder: every file is its owner's only (0600, folders 0700), whatever it was on disk.
 */
export type ArchiveItem =
  | { name: string; type: 'directory' }
  /** A file read from disk, as long as it was when it was reached (see addItem). */
  | { name: string; type: 'file'; path: string }
  | { name: string; type: 'file'; content: Buffer };

/** An entry read back: its content must be read (or left) before the next one comes. */
export interface ArchiveEntry {
  name: string;
  type: 'directory' | 'file';
  content: AsyncIterable<Uint8Array>;
}

const FILE_MODE = 0o600;
const FOLDER_MODE = 0o700;

const CHUNK_BYTES = 1 << 20;
/** Names made of plain path segments only: nothing absolute, no `..`, nothing a shell or a file system reads specially. */
const SAFE_NAME = /^(?!\.{1,2}(?:\/|$))[A-Za-z0-9_.-]+(?:\/(?!\.{1,2}(?:\/|$))[A-Za-z0-9_.-]+)*$/;

/** A gzip'd tar of `items`, written to `output`. */
export async function writeArchive(items: AsyncIterable<ArchiveItem> | Iterable<ArchiveItem>, output: Writable): Promise<void> {
  const pack = tar.pack();
  const writing = pipeline(pack, createGzip(), output);
  try {
    for await (const item of items) await addItem(pack, item);
    pack.finalize();
  } catch (error) {
    pack.destroy(error as Error);
    await writing.catch(() => {});
    throw error;
  }
  await writing;
}

/**
 * A file that changes while it is read (a database file being written) is archived at the length
 * it had when reached: what it gains after is left out, what it loses is filled with zeros (the
 * write-ahead log replayed at the restore puts the right content there). A file gone by then is
 * left out.
 */
async function addItem(pack: tar.Pack, item: ArchiveItem): Promise<void> {
  if (item.type === 'directory') {
    await addEntry(pack, { name: item.name, type: 'directory', mode: FOLDER_MODE }, Buffer.alloc(0));
    return;
  }
  if ('content' in item) {
    await addEntry(pack, { name: item.name, type: 'file', mode: FILE_MODE, size: item.content.length }, item.content);
    return;
  }
  let file: FileHandle;
  try {
    file = await open(item.path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  try {
    const { size } = await file.stat();
    let sink!: ReturnType<tar.Pack['entry']>;
    const done = new Promise<void>((resolve, reject) => {
      sink = pack.entry({ name: item.name, type: 'file', mode: FILE_MODE, size }, (error) => (error ? reject(error) : resolve()));
    });
    for (let offset = 0; offset < size; offset += CHUNK_BYTES) {
      const chunk = Buffer.alloc(Math.min(CHUNK_BYTES, size - offset));
      await readAt(file, chunk, offset);
      if (!sink.write(chunk)) await new Promise((resolve) => sink.once('drain', () => resolve(undefined)));
    }
    sink.end(undefined);
    await done;
  } finally {
    await file.close();
  }
}

/** Fills `chunk` from `position`, or up to the end of the file (the rest stays zero). */
async function readAt(file: FileHandle, chunk: Buffer, position: number): Promise<void> {
  for (let filled = 0; filled < chunk.length;) {
    const { bytesRead } = await file.read(chunk, filled, chunk.length - filled, position + filled);
    if (bytesRead === 0) return;
    filled += bytesRead;
  }
}

function addEntry(pack: tar.Pack, header: Parameters<tar.Pack['entry']>[0], content: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    pack.entry(header, content, (error) => (error ? reject(error) : resolve()));
  });
}

/**
 * The entries of a gzip'd tar, in order. Fails on anything but a well-formed gzip'd tar of
 * files and folders with plain relative names (a link, a device, `..` or an absolute name).
 */
export async function* readArchive(input: Readable): AsyncGenerator<ArchiveEntry> {
  const extract = tar.extract();
  const gunzip = createGunzip();
  // A failure upstream ends the loop below with its error.
  input.on('error', (error) => extract.destroy(error));
  gunzip.on('error', (error) => extract.destroy(error));
  input.pipe(gunzip).pipe(extract as unknown as Writable);
  for await (const entry of extract) {
    const name = entry.header.name.replace(/\/$/, '');
    const type = entry.header.type;
    if (!SAFE_NAME.test(name) || (type !== 'file' && type !== 'directory')) {
      throw new ArchiveFormatError(`an entry the archive may not hold: ${JSON.stringify(entry.header.name)} (${type})`);
    }
    yield { name, type, content: entry as AsyncIterable<Uint8Array> };
    entry.resume(); // whatever the caller left unread
  }
}

/** The archive is not a well-formed gzip'd tar of plain files and folders. */
export class ArchiveFormatError extends Error {}

/** Writes an entry under `dir` (its folders first, a file of that name replaced); not synced (fsyncTree). */
export async function extractEntry(entry: ArchiveEntry, dir: string): Promise<void> {
  const path = join(dir, entry.name);
  if (entry.type === 'directory') {
    await mkdir(path, { recursive: true, mode: FOLDER_MODE });
    return;
  }
  await mkdir(join(path, '..'), { recursive: true, mode: FOLDER_MODE });
  const file = await open(path, 'w', FILE_MODE);
  try {
    await file.chmod(FILE_MODE); // a file replaced keeps its mode otherwise
    for await (const chunk of entry.content) await file.write(chunk);
  } finally {
    await file.close();
  }
}

/**
 * The folders and files under `dir` as archive items named relative to it, in name order, those
 * `keep` refuses left out (a folder left out takes what it holds with it). Sockets and links are
 * left out; so is whatever disappears during the walk.
 */
export async function* folderItems(
  dir: string, keep: (name: string, isDirectory: boolean) => boolean = () => true, prefix = '',
): AsyncGenerator<ArchiveItem> {
  let entries: Dirent[];
  try {
    entries = await readdir(join(dir, prefix), { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const name = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (!(entry.isDirectory() || entry.isFile()) || !keep(name, entry.isDirectory())) continue;
    if (entry.isFile()) {
      yield { name, type: 'file', path: join(dir, name) };
      continue;
    }
    yield { name, type: 'directory' };
    yield* folderItems(dir, keep, name);
  }
}

/** An entry's whole content, for the small ones. */
export async function contentOf(entry: ArchiveEntry): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of entry.content) chunks.push(chunk);
  return Buffer.concat(chunks);
}
