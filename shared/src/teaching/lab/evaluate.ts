import { PER_MEMBER_CHECKS, type Lab } from './lab-format';
import { checkRoom, checkSpill, type StepResult } from './checks';
import type { LabRoomData } from './room-data';

/** Most members whose own steps are evaluated and written (the authors of the room's annotations). */
export const MAX_LAB_MEMBERS = 500;

/** A member's own results: their name as their annotations give it, and each per-member step. */
export interface MemberResults {
  readonly name: string;
  readonly steps: Readonly<Record<string, StepResult>>;
}

/**
 * The results of a lab in a room: room-wide steps once (`room`), per-member steps for each member
 * (`members`, by user id). A member with no entry has done no per-member step.
 */
export interface LabResults {
  readonly labId: string;
  readonly evaluatedAt: number;
  readonly room: Readonly<Record<string, StepResult>>;
  readonly members: Readonly<Record<string, MemberResults>>;
}

/** Evaluates every step of `lab` on the room's data; pure but for `now`. */
export function evaluateLab(lab: Lab, data: LabRoomData, now: number): LabResults {
  const room: Record<string, StepResult> = {};
  // A Map, turned into an object at the end: a member id is user text (`__proto__` included).
  const members = new Map<string, { name: string; steps: Record<string, StepResult> }>();
  const people = new Map<string, string>();
  for (const a of data.annotations) {
    if (people.size >= MAX_LAB_MEMBERS) break;
    if (!people.has(a.author.id)) people.set(a.author.id, a.author.name);
  }
  for (const step of lab.steps) {
    const capture = lab.captures.find((c) => c.id === step.check.capture);
    // The lab schema refuses a check naming no capture; nothing to evaluate without one.
    if (!capture) continue;
    if (step.check.kind === 'spill-annotated') {
      for (const [id, name] of people) {
        let m = members.get(id);
        if (!m) members.set(id, (m = { name, steps: {} }));
        m.steps[step.id] = checkSpill(step.check, capture, data, id);
      }
    } else {
      room[step.id] = checkRoom(step.check, capture, data);
    }
  }
  return { labId: lab.id, evaluatedAt: now, room, members: Object.fromEntries(members) };
}

/** Whether a step is evaluated per member rather than for the room. */
export const isPerMember = (step: Lab['steps'][number]): boolean => PER_MEMBER_CHECKS.includes(step.check.kind);
