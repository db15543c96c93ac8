import { describe, expect, test } from 'bun:test';
import { judgeAddress, parseIpv6 } from '../../src/mcp-client/judge-address.ts';

describe('judgeAddress', () => {
  test.each([
    ['127.0.0.1', 'a loopback address'],
    ['127.255.255.254', 'a loopback address'],
    ['0.0.0.0', 'an unspecified ("this network") address'],
    ['10.1.2.3', 'a private address'],
    ['172.16.0.1', 'a private address'],
    ['172.31.255.255', 'a private address'],
    ['192.168.0.10', 'a private address'],
    ['100.64.0.1', 'a shared (carrier-grade NAT) address'],
    ['169.254.169.254', 'a link-local address'],
    ['224.0.0.1', 'a multicast address'],
    ['255.255.255.255', 'a reserved or broadcast address'],
    ['::', 'an unspecified address'],
    ['::1', 'a loopback address'],
    ['[::1]', 'a loopback address'],
    ['::ffff:127.0.0.1', 'a loopback address'],
    ['::ffff:7f00:1', 'a loopback address'],
    ['::ffff:10.0.0.1', 'a private address'],
    ['::127.0.0.1', 'a loopback address'],
    ['64:ff9b::7f00:1', 'a loopback address'],
    ['2002:7f00:1::', 'a loopback address'],
    ['fc00::1', 'a unique-local (private) address'],
    ['fd12:3456::1', 'a unique-local (private) address'],
    ['fe80::1%eth0', 'a link-local address'],
    ['ff02::1', 'a multicast address'],
    ['localhost', 'not an IP address'],
    ['127.1', 'not an IP address'],
  ])('%s is refused as %s', (address, reason) => {
    expect(judgeAddress(address)).toEqual({ allowed: false, reason });
  });

  test.each(['8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])(
    '%s is public',
    (address) => {
      expect(judgeAddress(address)).toEqual({ allowed: true });
    },
  );

  test('IPv6 text parses to its 16 bytes, with an embedded IPv4 tail', () => {
    expect(parseIpv6('::ffff:1.2.3.4')).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 255, 255, 1, 2, 3, 4]);
    expect(parseIpv6('2001:db8::1')).toEqual([0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
    expect(parseIpv6('not-an-address')).toBeUndefined();
  });
});
