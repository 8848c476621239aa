import { inertCell, type ExportedAnnotation } from '@seam/shared/model';
import type { PresenterSample } from '@seam/shared/teaching';

/** Most presenter moves a summary lists; the rest are counted. */
export const MAX_SUMMARY_MOVES = 200;
/** Most characters of a quote a summary shows. */
export const MAX_SUMMARY_QUOTE = 300;

/** What a session summary is made from. */
export interface SummaryInput {
  readonly title: string;
  readonly startsAt: number;
  readonly endsAt: number;
  /** Whether older history was dropped, so the session may have started earlier. */
  readonly dropped: boolean;
  /** The room's annotations with their documents and lines (as the export places them). */
  readonly annotations: readonly ExportedAnnotation[];
  /** The presenter's samples in time order, and each document's title. */
  readonly presenter: readonly { readonly at: number; readonly view: PresenterSample | null }[];
  readonly titleOf: (docId: string) => string;
}

const clock = (at: number): string => new Date(at).toISOString().slice(11, 19);
const day = (at: number): string => new Date(at).toISOString().replace('T', ' ').slice(0, 19) + ' UTC';
const where = (a: ExportedAnnotation): string =>
  a.lineFrom !== undefined ? `${inertCell(a.document)}, line ${a.lineFrom}${a.lineTo !== undefined && a.lineTo !== a.lineFrom ? `–${a.lineTo}` : ''}` : inertCell(a.document);

/** Where the presenter went: one line per change of document (or of presenting at all), not per scroll. */
function moves(samples: SummaryInput['presenter'], titleOf: (docId: string) => string): string[] {
  const out: string[] = [];
  let last: string | undefined;
  let n = 0;
  for (const s of samples) {
    const key = s.view === null ? '' : `${s.view.userId}\n${s.view.docId ?? ''}`;
    if (key === last) continue;
    last = key;
    n += 1;
    if (out.length >= MAX_SUMMARY_MOVES) continue;
    if (s.view === null) out.push(`- ${clock(s.at)} · nobody presents`);
    else {
      const doc = s.view.docId === null ? 'the room overview' : `${inertCell(titleOf(s.view.docId))}, from line ${s.view.topLine}`;
      out.push(`- ${clock(s.at)} · ${inertCell(s.view.name || 'the presenter')} presents ${doc}`);
    }
  }
  if (n > out.length) out.push(`- … ${n - out.length} more`);
  return out;
}

/**
 * The Markdown summary of a session: when its history runs, where the presenter went, and each
 * question annotation in the order it was asked (who, where, the quoted text, and every reply in
 * time order). All user and dump text is inert (`inertCell`): it renders as the text it is.
 */
export function sessionSummary(input: SummaryInput): string {
  const out = [`# Session: ${inertCell(input.title)}`, ''];
  out.push(`History from ${day(input.startsAt)} to ${day(input.endsAt)}.`);
  if (input.dropped) out.push('', `Older history was dropped: this history starts at ${day(input.startsAt)}.`);
  const m = moves(input.presenter, input.titleOf);
  out.push('', '## Where the presenter went', '', ...(m.length > 0 ? m : ['Nobody presented.']));
  const questions = input.annotations.filter((a) => a.kind === 'question').sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1));
  out.push('', `## Questions (${questions.length})`);
  if (questions.length === 0) out.push('', 'Nobody asked a question.');
  questions.forEach((q, i) => {
    out.push('', `### ${i + 1}. ${inertCell(q.author.name)} asked at ${clock(q.createdAt)}, on ${where(q)}`, '');
    const quote = q.quoted.length > MAX_SUMMARY_QUOTE ? `${q.quoted.slice(0, MAX_SUMMARY_QUOTE)}…` : q.quoted;
    if (quote.trim()) out.push(`Quoting: ${inertCell(quote)}`, '');
    out.push(`Question: ${inertCell(q.body)}`, '');
    const replies = [...q.replies].sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1));
    if (replies.length === 0) out.push('- No answer yet.');
    for (const r of replies) out.push(`- Answer by ${inertCell(r.author.name)} at ${clock(r.createdAt)}: ${inertCell(r.body)}`);
    if (q.resolved) out.push('- Resolved.');
  });
  return out.join('\n') + '\n';
}
