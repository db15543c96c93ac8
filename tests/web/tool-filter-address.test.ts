import { describe, expect, test } from 'bun:test';
import { NO_TOOL_FILTERS } from '../../web/tool-filter.ts';
import { addressForFilters, filtersFromAddress } from '../../web/tool-filter-address.ts';

describe('filtersFromAddress', () => {
  test('no parameters: nothing filtered', () => {
    expect(filtersFromAddress('')).toEqual({ filters: { ...NO_TOOL_FILTERS }, problems: [] });
  });

  test('every parameter read back', () => {
    expect(filtersFromAddress('?q=read+file&status=off&category=external&source=user')).toEqual({
      filters: { query: 'read file', status: 'off', category: 'external', source: 'user' },
      problems: [],
    });
  });

  test('an unknown value is ignored and reported, the others kept', () => {
    expect(filtersFromAddress('?q=x&status=maybe&category=games&source=user')).toEqual({
      filters: { query: 'x', status: 'all', category: 'all', source: 'user' },
      problems: [
        'The address asks for status "maybe", which is not one of on, off; showing every status.',
        'The address asks for category "games", which is not one of system, interaction, image, external; showing every category.',
      ],
    });
  });
});

describe('addressForFilters', () => {
  test('nothing filtered: no query string', () => {
    expect(addressForFilters(NO_TOOL_FILTERS)).toBe('');
    expect(addressForFilters(NO_TOOL_FILTERS, '?q=old&status=on')).toBe('');
  });

  test('only what differs from the defaults, parameters not ours kept', () => {
    expect(
      addressForFilters({ ...NO_TOOL_FILTERS, query: 'a b&c', source: 'operator' }, '?debug=1&q=old'),
    ).toBe('?debug=1&q=a+b%26c&source=operator');
  });

  test('round trip', () => {
    const filters = {
      query: 'Écho  tool',
      status: 'on' as const,
      category: 'system',
      source: 'builtin' as const,
    };
    expect(filtersFromAddress(addressForFilters(filters)).filters).toEqual(filters);
  });
});
