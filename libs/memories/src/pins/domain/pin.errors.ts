import { DomainError, type ErrorKind } from '@app/kernel';

export enum PinErrorCode {
  /** A team pin puts a memory in everyone's startup context: admins only. */
  TeamPinNeedsAdmin = 'team_pin_needs_admin',
  /** A private memory cannot be in everyone's startup context. */
  TeamPinNeedsTeamMemory = 'team_pin_needs_team_memory',
}

const KIND: Record<PinErrorCode, ErrorKind> = {
  [PinErrorCode.TeamPinNeedsAdmin]: 'forbidden',
  [PinErrorCode.TeamPinNeedsTeamMemory]: 'conflict',
};

export class PinError extends DomainError<PinErrorCode> {
  constructor(code: PinErrorCode, message: string) {
    super(KIND[code], code, message);
    this.name = 'PinError';
  }

  static teamPinNeedsAdmin(): PinError {
    return new PinError(
      PinErrorCode.TeamPinNeedsAdmin,
      'Only an admin key may pin or unpin a memory for the whole team; pin it for yourself (scope user)',
    );
  }

  static teamPinNeedsTeamMemory(id: number): PinError {
    return new PinError(
      PinErrorCode.TeamPinNeedsTeamMemory,
      `Memory ${id} is private: only a team-visible memory can be pinned for the whole team`,
    );
  }
}
