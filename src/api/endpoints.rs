//! Every endpoint paydesk calls, in one table. Paths the spec does not show are marked
//! `assumed` (docs/design.md §1) so that one edit adapts the app when the provider publishes them.

/// One endpoint of the Partner Payment API.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Endpoint {
    /// Short name, used in logs and the journal.
    pub name: &'static str,
    /// Path relative to the base URL.
    pub path: &'static str,
    /// The scope the API key needs.
    pub scope: &'static str,
    /// Whether the endpoint requires `Idempotency-Key`.
    pub idempotent: bool,
    /// Whether the path is our assumption rather than the spec's statement.
    pub assumed: bool,
}

/// `POST /partner/1.0/payment/link/create`.
pub const LINK_CREATE: Endpoint = Endpoint {
    name: "link.create",
    path: "/partner/1.0/payment/link/create",
    scope: "collection:link",
    idempotent: true,
    assumed: false,
};

/// Link detail: named by the spec, path and body assumed (`{"id": "..."}`).
pub const LINK_DETAIL: Endpoint = Endpoint {
    name: "link.detail",
    path: "/partner/1.0/payment/link/detail",
    scope: "collection:link",
    idempotent: false,
    assumed: true,
};

/// Link cancel: named by the spec, path and body assumed (`{"id": "..."}`).
pub const LINK_CANCEL: Endpoint = Endpoint {
    name: "link.cancel",
    path: "/partner/1.0/payment/link/cancel",
    scope: "collection:link",
    idempotent: false,
    assumed: true,
};

/// `POST /partner/1.0/card/save`.
pub const CARD_SAVE: Endpoint = Endpoint {
    name: "card.save",
    path: "/partner/1.0/card/save",
    scope: "payment:sale",
    idempotent: false,
    assumed: false,
};

/// `POST /partner/1.0/pos/installment/list`.
pub const INSTALLMENT_LIST: Endpoint = Endpoint {
    name: "installment.list",
    path: "/partner/1.0/pos/installment/list",
    scope: "payment:inquiry",
    idempotent: false,
    assumed: false,
};

/// The whole table.
pub const ALL: [Endpoint; 5] = [
    LINK_CREATE,
    LINK_DETAIL,
    LINK_CANCEL,
    CARD_SAVE,
    INSTALLMENT_LIST,
];

/// Every scope an endpoint of the table requires.
pub const SCOPES: [&str; 3] = ["collection:link", "payment:sale", "payment:inquiry"];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_link_create_is_idempotent_here_and_paths_are_versioned() {
        for e in ALL {
            assert!(e.path.starts_with("/partner/1.0/"), "{}", e.name);
            assert!(SCOPES.contains(&e.scope));
            assert_eq!(e.idempotent, e.name == "link.create", "{}", e.name);
        }
    }
}
