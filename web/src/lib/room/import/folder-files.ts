/** The part of `FileSystemEntry` a dropped folder is read through (Chromium, Firefox and Safari all have it). */
export interface EntryLike {
  readonly isFile: boolean;
  readonly isDirectory: boolean;
  readonly name: string;
  /** Files only. */
  file?(ok: (f: File) => void, fail: (e: DOMException) => void): void;
  /** Folders only. */
  createReader?(): { readEntries(ok: (entries: EntryLike[]) => void, fail: (e: DOMException) => void): void };
}

/** What a drop or a pick brings: files by their path inside what was dropped, and whether a folder was among them. */
export interface Gathered {
  readonly files: readonly { readonly path: string; readonly file: File }[];
  readonly folder: boolean;
}

function fileOf(entry: EntryLike): Promise<File> {
  return new Promise((resolve, reject) => entry.file!(resolve, reject));
}

/** Every entry of a folder: `readEntries` answers in batches (100 at a time in Chromium) until it answers none. */
async function childrenOf(dir: EntryLike): Promise<EntryLike[]> {
  const reader = dir.createReader!();
  const out: EntryLike[] = [];
  for (;;) {
    const batch = await new Promise<EntryLike[]>((resolve, reject) => reader.readEntries(resolve, reject));
    if (batch.length === 0) return out;
    out.push(...batch);
  }
}

/**
 * The files under `entries` (what `DataTransferItem.webkitGetAsEntry()` gave for a drop), folders
 * read recursively, each with its path from the dropped item down (`dump/module_0001….txt`), in
 * name order within a folder.
 */
export async function filesOfEntries(entries: readonly EntryLike[]): Promise<Gathered> {
  const files: { path: string; file: File }[] = [];
  let folder = false;
  const walk = async (entry: EntryLike, prefix: string): Promise<void> => {
    const path = `${prefix}${entry.name}`;
    if (entry.isFile) {
      files.push({ path, file: await fileOf(entry) });
    } else if (entry.isDirectory) {
      folder = true;
      const children = await childrenOf(entry);
      children.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      for (const c of children) await walk(c, `${path}/`);
    }
  };
  for (const e of entries) await walk(e, '');
  return { files, folder };
}

/**
 * The files of an `<input type=file>`: with `webkitdirectory` each carries its path inside the
 * folder picked in `webkitRelativePath`; picked one by one it is empty and the name is the path.
 */
export function filesOfInput(list: ArrayLike<File>): Gathered {
  const all = Array.from(list);
  return { files: all.map((file) => ({ path: file.webkitRelativePath || file.name, file })), folder: all.some((f) => !!f.webkitRelativePath) };
}

/**
 * The entries of a drop's items, or null when the browser gives none (then `dataTransfer.files`
 * holds the files, without folders). Read them before the drop event returns: the items empty after.
 */
export function entriesOfDrop(items: DataTransferItemList): EntryLike[] | null {
  const out: EntryLike[] = [];
  for (const item of Array.from(items)) {
    if (item.kind !== 'file') continue;
    const entry = typeof item.webkitGetAsEntry === 'function' ? item.webkitGetAsEntry() : null;
    if (!entry) return null;
    out.push(entry as unknown as EntryLike);
  }
  return out;
}
