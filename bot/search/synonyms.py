"""The support desk's synonym table: ways customers and agents name the same thing.

Each line is `concept: phrase | phrase | ...`. A phrase is matched on analysed words (so "logged in",
"log-in" and "logging in" all match "log in"), longest first. Wherever a phrase occurs, in a document
or a query, the analyser adds the concept as an extra term (`~concept`), so "MFA" in a question finds
"two-factor" in a section. A phrase may appear under more than one concept (Okta is an identity
provider and means single sign-on). Keep phrases specific: a common word here ("card", "client")
would join unrelated documents. Add a line when the evaluation set shows customers using a word the
help center doesn't; `python -m bench.search_eval` says whether it helped.
"""

from __future__ import annotations

TABLE = """
sso: sso | single sign on | saml | saml sso | saml app | okta | azure ad | entra | entra id | microsoft entra | onelogin | jumpcloud | sign in with google | continue with sso | google sso
idp: idp | identity provider | okta | azure ad | azure | entra | entra id | microsoft entra | aad | onelogin | jumpcloud | google workspace | google admin | ping identity
signin: sign in | log in | login | logon | log on | signin | get in | get into | sign on | cannot log in | cant log in | cannot sign in | cant sign in | nobody can sign in | nobody can log in | cannot get in | cant get in
signout: sign out | log out | logged out | logout | signed out | session expired | session expire | kicked out | kick out
lockout: locked out | lock out | lockout | account locked | locked account | temporarily locked | cannot get in | cant get in | can not get in | cannot log in | cant log in | cannot sign in | cant sign in | nobody can sign in | nobody can log in
twofa: 2fa | mfa | two factor | two step | 2 step | 2 factor | multi factor | multifactor | second factor | totp | one time code | verification code | authenticator code | 6 digit code
password_reset: forgot password | forgotten password | reset password | password reset | reset link | reset my password | new password
bank_transfer: bank transfer | wire | wire transfer | wired | ach | sepa | iban | swift | remittance
cancel: cancel | cancellation | close account | close our account | close the account | close my account | shut down | terminate | unsubscribe | stop being billed | stop paying | stop being charged | wind down
deactivate: deactivate | deactivated | deprovision | deprovisioned | offboard | offboarded | offboarding | removed user | remove user | removed member | remove member | suspended user | leaver | leavers
provisioning: scim | provisioning | provision | automatic user provisioning | user provisioning | auto provisioning | just in time | jit
spam: spam | junk | junk folder | spam folder | quarantine | quarantined | not spam | deliverability
incident_report: postmortem | post mortem | incident report | root cause analysis | rca | outage report
notification: notification | notifications | notified | notify | email for every | emails for every | email every time | emails every time | an email every
mention: mention | mentions | mentioned | at mention | tagged | tags her | tags him | tags me | tag me | tag someone | someone tags
digest: digest | daily digest | one summary a day | summary a day | once a day | daily summary | daily email
outage: outage | kitebase down | kitebase is down | is it down | app is down | site is down | went down | down for everyone | downtime | bad gateway | 502 | 503 | service unavailable | incident
slow: slow | slowness | laggy | lag | sluggish | takes forever | crawl | spinner | freeze | freezes | performance
timeline: timeline | gantt | gantt chart | schedule view
xlsx: xlsx | excel | spreadsheet
invoice: invoice | receipt | invoices | receipts
refund: refund | money back | reimburse | refunded | credit back
double_charge: charged twice | double charge | double charged | duplicate charge | two charges | two identical charges | charged two times
rate_limit: rate limit | rate limited | throttle | throttled | throttling | 429 | too many requests | quota
webhook: webhook | web hook | callback url
signature: signature | hmac | signing secret | x kitebase signature
guest: guest | guests | external | contractor | contractors | freelancer | freelancers | external collaborator | outside collaborator | client contact | vendor
owner_transfer: transfer ownership | make someone else the owner | new owner | take over | take over the workspace | ownership
admin: admin | administrator | admins
more_admins: second admin | another admin | more admins | additional admin | backup admin | extra admin | two admins | more than one admin
rejected: rejected | reject | not accepted | isnt accepted | invalid | not valid | refused | wrong code
seat: seat | seats | licence | license | licences | licenses | user license | extra users | more users
downgrade: downgrade | cheaper plan | lower plan | smaller plan | go down a plan | move down | pay less
upgrade: upgrade | higher plan | bigger plan | move up
discount: discount | education discount | nonprofit | non profit | charity | charities | school pricing | schools | academic | edu pricing
annual: annual | yearly | per year | annually
recurring: recurring | repeat | repeating | every monday | every week | weekly task | every day
pull_request: pull request | pr | prs | merge request
ios: ios | iphone | ipad
android: android | galaxy | pixel
push: push notification | push notifications | push | mobile push
ip_allowlist: ip allowlist | allowlist | whitelist | ip restriction | office ip | ip addresses | ip address | vpn
member_list: member list | member directory | member email | member emails | staff email
private: private | confidential
export: export | exported | exporting | download everything | get our data out
attachment: attachment | attachments | pdf | pdfs
custom_field: custom field | custom fields | dropdown field | single select | multi select | select field
view_only: view only | read only access | can view | viewer
status_page: status page | status kitebase example | is it just us
"""


def parse(table: str = TABLE) -> list[tuple[str, str]]:
    """(concept, phrase) pairs in table order."""
    pairs = []
    for line in table.strip().splitlines():
        concept, _, phrases = line.partition(":")
        pairs += [(concept.strip(), phrase.strip()) for phrase in phrases.split("|") if phrase.strip()]
    return pairs
