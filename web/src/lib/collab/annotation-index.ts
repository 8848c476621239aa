import * as Y from 'yjs';
import { annotationsMap, readAnnotation, type Annotation } from '@seam/shared/model';

/**
 * Keeps the room's annotations as plain data, re-reading only the annotations a change touched
 * (a reply, a resolve) instead of the whole map, so a room with thousands of annotations stays
 * cheap to update. `onChange` receives the full list, oldest first.
 */
export function watchAnnotations(doc: Y.Doc, onChange: (list: Annotation[]) => void): () => void {
  const map = annotationsMap(doc);
  const byId = new Map<string, Annotation>();
  const reread = (id: string) => {
    const a = readAnnotation(map.get(id));
    if (a && a.id === id) byId.set(id, a);
    else byId.delete(id);
  };
  const emit = () => onChange([...byId.values()].sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)));
  for (const id of map.keys()) reread(id);
  emit();
  const observer = (events: Y.YEvent<Y.AbstractType<unknown>>[]) => {
    const touched = new Set<string>();
    for (const e of events) {
      if (e.target === map) for (const key of e.changes.keys.keys()) touched.add(key);
      else if (typeof e.path[0] === 'string') touched.add(e.path[0]);
    }
    for (const id of touched) reread(id);
    if (touched.size > 0) emit();
  };
  map.observeDeep(observer);
  return () => map.unobserveDeep(observer);
}
