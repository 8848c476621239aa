/** The three capability roles of a room, from most to least powerful. */
export const Role = { owner: 'owner', annotator: 'annotator', viewer: 'viewer' } as const;
export type Role = (typeof Role)[keyof typeof Role];
export const ROLES: readonly Role[] = [Role.owner, Role.annotator, Role.viewer];

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

/** Whether `role` may write the room's shared texts and annotations (the room must not be locked, unless owner). */
export function canAnnotate(role: Role, locked: boolean): boolean {
  return role === Role.owner || (role === Role.annotator && !locked);
}
