import { describe, expect, it } from 'vitest';
import { entriesOfDrop, filesOfEntries, filesOfInput, type EntryLike } from './folder-files';

/** A file entry as `webkitGetAsEntry` gives one. */
const fileEntry = (name: string, text = name): EntryLike => ({ isFile: true, isDirectory: false, name, file: (ok) => ok(new File([text], name)) });

/** A folder entry whose reader answers in batches of `batch`, as Chromium's does with 100, then an empty batch. */
function dirEntry(name: string, children: EntryLike[], batch = 100): EntryLike {
  return {
    isFile: false,
    isDirectory: true,
    name,
    createReader: () => {
      let at = 0;
      return {
        readEntries: (ok) => {
          const next = children.slice(at, at + batch);
          at += next.length;
          queueMicrotask(() => ok(next));
        },
      };
    },
  };
}

describe('filesOfEntries', () => {
  it('reads a dropped folder recursively, every batch of every folder, with paths from the folder down', async () => {
    const many = Array.from({ length: 250 }, (_, i) => fileEntry(`module_${String(i).padStart(4, '0')}.jit_f.before_optimizations.txt`));
    const tree = dirEntry('dump', [fileEntry('b.txt'), dirEntry('passes', many, 100), fileEntry('a.txt', 'A')], 2);
    const got = await filesOfEntries([tree]);
    expect(got.folder).toBe(true);
    expect(got.files).toHaveLength(252);
    expect(got.files.slice(0, 3).map((f) => f.path)).toEqual(['dump/a.txt', 'dump/b.txt', 'dump/passes/module_0000.jit_f.before_optimizations.txt']);
    expect(got.files[251]?.path).toBe('dump/passes/module_0249.jit_f.before_optimizations.txt');
    expect(await got.files[0]?.file.text()).toBe('A');
  });

  it('takes dropped files as they are, and an empty folder as a folder of nothing', async () => {
    expect((await filesOfEntries([fileEntry('x.hlo')])).files.map((f) => f.path)).toEqual(['x.hlo']);
    expect(await filesOfEntries([dirEntry('empty', [])])).toEqual({ files: [], folder: true });
  });

  it('fails with the reader\'s error rather than importing part of a folder', async () => {
    const broken: EntryLike = { isFile: false, isDirectory: true, name: 'd', createReader: () => ({ readEntries: (_ok, fail) => fail(new DOMException('gone', 'NotFoundError')) }) };
    await expect(filesOfEntries([fileEntry('a'), broken])).rejects.toThrow('gone');
  });
});

describe('filesOfInput', () => {
  it('uses the path inside a picked folder, and the name of a file picked alone', () => {
    const inFolder = new File(['x'], 'module_0001.jit_f.after_optimizations.txt');
    Object.defineProperty(inFolder, 'webkitRelativePath', { value: 'dump/module_0001.jit_f.after_optimizations.txt' });
    expect(filesOfInput([inFolder])).toEqual({ files: [{ path: 'dump/module_0001.jit_f.after_optimizations.txt', file: inFolder }], folder: true });
    const alone = new File(['x'], 'mlp.hlo.txt');
    expect(filesOfInput([alone])).toEqual({ files: [{ path: 'mlp.hlo.txt', file: alone }], folder: false });
    // A name is never a path, whatever it holds.
    const odd = new File(['x'], '<b>x</b>.json.gz');
    expect(filesOfInput([odd]).folder).toBe(false);
  });
});

describe('entriesOfDrop', () => {
  it('is null when an item has no entry, so the drop falls back to its files', () => {
    const item = (entry: EntryLike | null) => ({ kind: 'file', webkitGetAsEntry: () => entry }) as unknown as DataTransferItem;
    const text = { kind: 'string' } as unknown as DataTransferItem;
    const a = fileEntry('a');
    expect(entriesOfDrop([item(a), text] as unknown as DataTransferItemList)).toEqual([a]);
    expect(entriesOfDrop([item(a), item(null)] as unknown as DataTransferItemList)).toBeNull();
  });
});
