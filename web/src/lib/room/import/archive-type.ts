/** The archives the import takes whole, by file name, and the content type each is sent as (docs/protocol.md, imports). */
const ARCHIVES: readonly (readonly [RegExp, string])[] = [
  [/\.zip$/i, 'application/zip'],
  [/\.(tar\.gz|tgz)$/i, 'application/gzip'],
  [/\.tar$/i, 'application/x-tar'],
];

/** The content type `name` is imported as when it is an archive (`dumps.zip`, `dumps.tar.gz`, `dumps.tgz`, `dumps.tar`); null otherwise. */
export function archiveType(name: string): string | null {
  for (const [re, type] of ARCHIVES) if (re.test(name)) return type;
  return null;
}
