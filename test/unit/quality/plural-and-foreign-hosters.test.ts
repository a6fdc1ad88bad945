// Hosters that name themselves in the plural ("Clouds", "Racks",
// "Hostings", "Proxies"), in Portuguese ("hospedagem") or French
// ("hébergement"), and remote-desktop sellers ("...RDP") are caught at
// medium by keywords.json, through the real lists and the real classifier;
// the false friends of the new "*racks" stem are not. Names as
// ip-location-db spells them; ASNs from the private range, so the name alone
// decides.
import { describe, expect, it } from 'vitest';
import { builtInLists } from '../../../src/quality/lists.js';
import { classifierOverNames } from '../../helpers/synthetic-ipdb.js';

// [organization (its real ASN), category, the keyword expected to fire]
const SELLERS: [string, string, 'datacenter' | 'vpn_proxy', string][] = [
  ['Sakura Clouds LLC', 'AS214478', 'datacenter', 'clouds'],
  ['PRIVATE DATA CLOUDS PTY LTD', 'AS138592', 'datacenter', 'clouds'],
  ['Cactos Hospedagem LTDA', 'AS273508', 'datacenter', 'hospedagem'],
  ['STAYBOX SERVICOS DE HOSPEDAGEM NA INTERNET LTDA', 'AS270853', 'datacenter', 'hospedagem'],
  ['ACCESS HEBERGEMENT s.a.r.l.', 'AS60902', 'datacenter', 'heberg*'],
  ['Association Athena-Heberg', 'AS215813', 'datacenter', 'heberg*'],
  ['ForestRacks', 'AS40279', 'datacenter', '*racks'],
  ['InterRacks B.V.', 'AS42093', 'datacenter', '*racks'],
  ['SnTHostings', 'AS140947', 'datacenter', '*hostings'],
  ['SoloRDP', 'AS150303', 'datacenter', '*rdp'],
  ['AceRDP Ltd', 'AS206479', 'datacenter', '*rdp'],
  ['Xproxies', 'AS11527', 'vpn_proxy', '*proxies'],
  ['AUPROXIES LLC', 'AS53958', 'vpn_proxy', '*proxies'],
];
const FRIENDS = ['Fast Tracks Ltd', 'Example Racetracks Inc.'];

const named = classifierOverNames([...SELLERS.map(([org]) => org), ...FRIENDS], 64700, builtInLists());

describe('plural, Portuguese, French and remote-desktop hosting names', () => {
  it.each(SELLERS)('%s (%s) is intercepted from medium as %s by %s', (name, _asn, category, keyword) => {
    const r = named.check(name, 'medium');
    expect(r.intercept).toEqual({ low: false, medium: true, high: true });
    expect(r.category).toBe(category);
    expect(category === 'vpn_proxy' ? r.signals.vpn_proxy : r.signals.org_keyword).toBe(keyword);
  });

  it.each(FRIENDS)('%s, a false friend of "*racks", is intercepted at no level', (name) => {
    expect(named.check(name, 'high').intercept).toEqual({ low: false, medium: false, high: false });
  });
});
