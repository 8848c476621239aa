import { describe, expect, it } from 'vitest';
import { archiveType } from './archive-type';
import { importSummary, percentSent, progressText } from './progress-text';

describe('progressText', () => {
  it('says the percent and bytes sent, then that the server is importing', () => {
    const t = { label: '14 files', kind: 'import', phase: 'sending', loaded: 1.2 * 1024 * 1024, total: 2.9 * 1024 * 1024 } as const;
    expect(progressText(t)).toBe('Uploading 14 files · 41% · 1.2 MB of 2.9 MB');
    expect(progressText({ ...t, phase: 'waiting', loaded: t.total })).toBe('Importing 14 files…');
    expect(progressText({ ...t, kind: 'upload', label: 'mlp.hlo.txt', phase: 'waiting' })).toBe('Adding mlp.hlo.txt…');
    expect(progressText({ ...t, total: 0, loaded: 2048 })).toBe('Uploading 14 files · 2 KB');
  });

  it('never says 100% before the last byte, nor more than 100%', () => {
    expect(percentSent({ loaded: 999_999, total: 1_000_000 })).toBe(99);
    expect(percentSent({ loaded: 1_000_000, total: 1_000_000 })).toBe(100);
    expect(percentSent({ loaded: 5, total: 0 })).toBe(0);
    expect(percentSent({ loaded: 20, total: 10 })).toBe(100);
  });
});

describe('importSummary', () => {
  it('counts files, groups and skips', () => {
    expect(importSummary({ added: 9, unchanged: 5, groups: [1, 2], skipped: [1, 2, 3] })).toBe('Imported 14 files into 2 groups: 9 added, 5 unchanged; 3 skipped');
    expect(importSummary({ added: 1, unchanged: 0, groups: [1], skipped: [] })).toBe('Imported 1 file into 1 group: 1 added, 0 unchanged');
    expect(importSummary({ added: 0, unchanged: 0, groups: [], skipped: [1] })).toBe('Imported 0 files: 0 added, 0 unchanged; 1 skipped');
  });
});

describe('archiveType', () => {
  it('knows zip, tar.gz, tgz and tar by name, and nothing else', () => {
    expect(['d.zip', 'D.TAR.GZ', 'd.tgz', 'd.tar', 'mlp.trace.json.gz', 'zip.txt', 'd.tar.xz'].map(archiveType)).toEqual([
      'application/zip',
      'application/gzip',
      'application/gzip',
      'application/x-tar',
      null,
      null,
      null,
    ]);
  });
});
