//! The rules of the Partner Payment API as pure types: money, the link draft and its
//! validation, card and installment drafts. Nothing here does I/O; "now" is a parameter.

pub mod barcode;
pub mod card;
pub mod catalog;
pub mod codes;
pub mod email;
pub mod errors;
pub mod installment;
pub mod items;
pub mod link;
pub mod messages;
pub mod money;
pub mod payment_link;
pub mod phone;
pub mod receipt;
pub mod roles;
pub mod server_text;
pub mod share;
pub mod staff;
pub mod wire_format;

pub use barcode::{Barcode, BarcodeError, BarcodeKind};
pub use card::{CardBrand, CardDraft, CardRequest, group_digits, mask_pan};
pub use catalog::{BarcodeIndex, CatalogLookup, CatalogVariant, OWN_PREFIX, is_own_id};
pub use codes::{CardStatus, CardUsage, Currency, LinkStatus, PosSubType, PosType, UnknownCode};
pub use email::{EmailAddress, EmailError, mask_email};
pub use errors::{Field, FieldError, FieldErrors, FieldProblem, ItemField};
pub use installment::{InstallmentDraft, InstallmentQuery};
pub use items::{ItemDraft, ItemKind, LinkItem, ValidItem};
pub use link::{
    Check, CheckResult, CheckStatus, KeyLimits, LinkContext, LinkDraft, LinkFigures, LinkRequest,
    ServerPriced,
};
pub use money::{AmountError, format_amount, format_number, format_plain, parse_amount};
pub use payment_link::Link;
pub use phone::{Phone, PhoneError};
pub use receipt::{Receipt, ReceiptError, ReceiptFacts, paid_in_full};
pub use roles::{Need, Ownership, Permit};
pub use share::{ItemLine, LinkFacts, LinkMessage, Purpose, ShareError, compose, wa_me_url};
pub use staff::{ActingMember, Actor, Pin, Role, StaffInputError, StaffMember, StaffName};
