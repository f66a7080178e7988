insert into tenants (id, name, created_at) values ('01900000-0000-7000-8000-000000000001', 'Big', now()) on conflict do nothing;
\timing on
insert into interactions (tenant_id, id, timestamp, platform_id, content_hash, interaction_type, content_metadata, classifications, risk_score, direction, source, user_id, policy_decisions)
select '01900000-0000-7000-8000-000000000001', gen_random_uuid(),
  date_trunc('milliseconds', timestamptz '2026-05-01' + (n / 10) * interval '1 second' * 7.7),
  (array['chatgpt','chatgpt','chatgpt','chatgpt','copilot','copilot','claude','claude','gemini','mistral','perplexity','deepseek'])[1 + (hashint4(n) & 2147483647) % 12],
  md5(n::text) || md5((n+1)::text), 'prompt', '{"tokens": 12}',
  case when (hashint4(n+7) & 2147483647) % 100 < 35 then jsonb_build_array(jsonb_build_object('type', (array['EMAIL','EMAIL','EMAIL','PHONE','PERSON_NAME','IP_ADDRESS','CREDIT_CARD','IBAN','API_KEY','NIR'])[1 + (hashint4(n+3) & 2147483647) % 10], 'value','x','score',0.9,'start',0,'end',3)) else '[]'::jsonb end,
  case when (hashint4(n+11) & 2147483647) % 100 < 65 then 0 else ((hashint4(n+13) & 2147483647) % 100 + 1) / 100.0 end,
  (array['outbound','outbound','outbound','inbound','inbound'])[1 + (hashint4(n+17) & 2147483647) % 5],
  (array['browser_extension','browser_extension','browser_extension','proxy','proxy','endpoint_agent','api'])[1 + (hashint4(n+19) & 2147483647) % 7],
  null, '[]'
from generate_series(:lo, :hi) n;
