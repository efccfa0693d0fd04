//! The shop's owner (issue 28, docs/design.md §8 "The owner and the desks"): the one login that
//! creates and migrates the shop's schema and makes a login for each desk. No desk migrates,
//! and no desk joins with the owner's login.
//!
//! - [`init`] (`paydesk shop init OWNER_URL`) needs a login that owns the database and may
//!   create roles (`CREATEROLE`), as a managed PostgreSQL's admin login does; a superuser is
//!   not needed. It migrates the schema ([`super::schema::migrate`]), creates the desks' group
//!   role ([`Roles::desks`], named after the database: roles are cluster-wide, so two shops or
//!   two test databases on one cluster never share one) and sets what that group may do
//!   ([`grants`]). Run again, it changes nothing that is already so.
//! - [`add_desk`] makes a login for one desk: `<database>_desk_<n>`, a member of the group,
//!   with a random password of 139 bits that is printed once and kept nowhere (the server
//!   receives its SCRAM verifier only, made here), and a connection limit.
//! - [`remove_desk`] sets that login `NOLOGIN` and ends its sessions at once.
//! - [`desks`] lists the logins with the desk that registered under each.
//!
//! - [`add_manager`] makes a manager of the shop, or gives one a new PIN, kept as a verifier
//!   only the shop holds.
//!
//! What the desks' group may do ([`grants`]): call the shop's functions, which check what a
//! desk sends (links, staff, catalog, audit, cards, leases) and take the desk from the
//! session's login; read the views of `desk_read` (schema step 20), never a table; no
//! `INSERT`, `UPDATE`, `DELETE` or `TRUNCATE` anywhere, no sequence, no DDL, no trigger
//! changes, no temporary tables, no `CREATE` in the schema.

use chrono::{DateTime, Utc};
use rand::Rng;
use zeroize::Zeroizing;

use super::{CONNECT_TIMEOUT, Shop, ShopError, ShopUrl, connect, schema};

/// PostgreSQL's longest name, in bytes (`NAMEDATALEN - 1`): a longer one is cut silently.
const NAME_MAX: usize = 63;

/// The longest suffix a role name takes after the database's name (`_desk_` and a number).
const LONGEST_SUFFIX: usize = "_desk_9999999999".len();

/// How many sessions one desk's login may hold at once: the app's session, its readers and a
/// few command-line runs.
pub const DESK_CONNECTIONS: i32 = 12;

/// How many characters a desk's password has, each one of [`PASSWORD_ALPHABET`]'s 57: 139
/// bits.
const PASSWORD_CHARS: usize = 24;

/// The letters and digits a desk's password is made of: all but `0`, `O`, `1`, `l` and `I`,
/// which look alike when the owner reads the password out or types it at the desk.
const PASSWORD_ALPHABET: &[u8] = b"23456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

/// The shop's role names, all from the database's name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Roles {
    dbname: String,
}

impl Roles {
    /// The roles of the shop in database `dbname`; a name too long to leave room for them is
    /// refused.
    pub fn of(dbname: &str) -> Result<Roles, ShopError> {
        if dbname.len() + LONGEST_SUFFIX > NAME_MAX {
            return Err(ShopError::DatabaseNameTooLong {
                dbname: dbname.to_owned(),
            });
        }
        Ok(Roles {
            dbname: dbname.to_owned(),
        })
    }

    /// The group every desk login belongs to (`NOLOGIN`).
    pub fn desks(&self) -> String {
        format!("{}_desks", self.dbname)
    }

    /// The `n`-th desk's login.
    pub fn desk(&self, n: i64) -> String {
        format!("{}_desk_{n}", self.dbname)
    }

    /// The role that owns the shop's `SECURITY DEFINER` functions (`NOLOGIN`): what they do
    /// runs with its rights, which are the tables' rows and nothing of the owner's login.
    pub fn definer(&self) -> String {
        format!("{}_definer", self.dbname)
    }
}

/// `name` as a quoted SQL identifier.
fn ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// What [`init`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Initialized {
    /// The schema's version before.
    pub from: i32,
    /// Its version now.
    pub to: i32,
    /// The desks' group role.
    pub desks_role: String,
    /// Whether the group role was created now (`false`: it was there).
    pub role_created: bool,
    /// Active managers the shop holds no PIN for (made before schema step 12, or brought by a
    /// desk's join): each needs `shop add-manager` before signing in on a joined desk.
    pub managers_without_pin: Vec<String>,
}

/// Connects as the owner, after checking that this login may set the shop up.
async fn owner_session(url: &ShopUrl, password: &Zeroizing<String>) -> Result<Shop, ShopError> {
    let shop = connect(url, password, CONNECT_TIMEOUT).await?;
    let pg = |e| ShopError::from_pg(e, url);
    // The owner works on the tables themselves, not on the desks' views.
    shop.client()
        .batch_execute("SET search_path = public")
        .await
        .map_err(pg)?;
    let row = shop
        .client()
        .query_one(
            "SELECT r.rolsuper, r.rolcreaterole,
                    pg_has_role(current_user, d.datdba, 'MEMBER')
             FROM pg_roles AS r, pg_database AS d
             WHERE r.rolname = current_user AND d.datname = current_database()",
            &[],
        )
        .await
        .map_err(pg)?;
    let (superuser, createrole, owns): (bool, bool, bool) = (row.get(0), row.get(1), row.get(2));
    let why = if !owns {
        Some(NotOwnerWhy::DoesNotOwnDatabase)
    } else if !createrole && !superuser {
        Some(NotOwnerWhy::CannotCreateRoles)
    } else {
        None
    };
    match why {
        Some(why) => Err(ShopError::NotOwner {
            user: url.user().to_owned(),
            why,
        }),
        None => Ok(shop),
    }
}

/// [`owner_session`] on a shop whose schema is this build's (`add-desk`, `remove-desk`, `desks`;
/// `init` is what brings it there).
async fn owner_shop(url: &ShopUrl, password: &Zeroizing<String>) -> Result<Shop, ShopError> {
    let shop = owner_session(url, password).await?;
    super::desk::check_schema(&shop).await?;
    Ok(shop)
}

/// Why a login cannot act as the shop's owner.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotOwnerWhy {
    /// It does not own the database.
    DoesNotOwnDatabase,
    /// It may not create roles.
    CannotCreateRoles,
}

/// Creates the `NOLOGIN` role `role` unless it is there; whether it was created now.
async fn create_nologin(
    tx: &tokio_postgres::Transaction<'_>,
    role: &str,
) -> Result<bool, tokio_postgres::Error> {
    let exists: bool = tx
        .query_one(
            "SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1)",
            &[&role],
        )
        .await?
        .get(0);
    if !exists {
        tx.batch_execute(&format!("CREATE ROLE {} NOLOGIN", ident(role)))
            .await?;
    }
    Ok(!exists)
}

/// `paydesk shop init`: creates or migrates the shop's schema, its desks' group role and what
/// that role may do. Safe to run again.
pub async fn init(url: &ShopUrl, password: &Zeroizing<String>) -> Result<Initialized, ShopError> {
    let roles = Roles::of(url.dbname())?;
    let mut shop = owner_session(url, password).await?;
    let migrated = schema::migrate(shop.client_mut(), url).await?;
    let pg = |e| ShopError::from_pg(e, url);
    let tx = shop.client_mut().transaction().await.map_err(pg)?;
    let desks = roles.desks();
    let exists = !create_nologin(&tx, &desks).await.map_err(pg)?;
    tx.batch_execute(&grants(url.dbname(), &desks))
        .await
        .map_err(pg)?;
    let definer = roles.definer();
    create_nologin(&tx, &definer).await.map_err(pg)?;
    tx.batch_execute(&definer_grants(&definer))
        .await
        .map_err(pg)?;
    let managers_without_pin = tx
        .query(
            "SELECT name FROM staff
             WHERE role = 'manager' AND active AND shop_verifier IS NULL ORDER BY folded",
            &[],
        )
        .await
        .map_err(pg)?
        .iter()
        .map(|r| r.get(0))
        .collect();
    tx.commit().await.map_err(pg)?;
    Ok(Initialized {
        from: migrated.from,
        to: migrated.to,
        desks_role: desks,
        role_created: !exists,
        managers_without_pin,
    })
}

/// The functions' owner (`NOLOGIN`, [`Roles::definer`]), set afresh: the rows of every table
/// and sequence of the shop and `EXECUTE` on its functions, which is all a function needs, and
/// every `SECURITY DEFINER` function of the schema handed to it (a later step's included). The
/// owner's login becomes a member first, as PostgreSQL asks of whoever hands a function over,
/// and the `CREATE` on the schema that handing over needs is taken back after.
fn definer_grants(definer: &str) -> String {
    let role = ident(definer);
    let literal = definer.replace('\'', "''");
    format!(
        "GRANT {role} TO CURRENT_USER;
         GRANT USAGE, CREATE ON SCHEMA public TO {role};
         GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO {role};
         GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA public TO {role};
         GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA public TO {role};
         DO $$
         DECLARE f regprocedure;
         BEGIN
             FOR f IN SELECT p.oid::regprocedure FROM pg_proc AS p
                 WHERE p.pronamespace = 'public'::regnamespace AND p.prosecdef
             LOOP
                 EXECUTE format('ALTER FUNCTION %s OWNER TO %I', f, '{literal}');
             END LOOP;
         END $$;
         REVOKE CREATE ON SCHEMA public FROM {role};"
    )
}

/// What [`add_manager`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ManagerAdded {
    /// A new manager.
    Added,
    /// A member of that name is a manager now, with this PIN (a reset, a clerk promoted, a
    /// disabled member enabled, or a manager from before the shop checked PINs).
    PinSet,
}

/// `paydesk shop add-manager NAME`: the owner, the shop's root of trust, makes a manager or
/// sets a manager's PIN. The shop keeps only a Blowfish verifier of the PIN (`crypt()`, cost
/// 10); the member's wrong PINs are cleared and their sign-ins ended.
pub async fn add_manager(
    url: &ShopUrl,
    password: &Zeroizing<String>,
    name: &crate::domain::StaffName,
    pin: &crate::domain::Pin,
) -> Result<ManagerAdded, ShopError> {
    let mut shop = owner_shop(url, password).await?;
    let pg = |e| ShopError::from_pg(e, url);
    let digits = Zeroizing::new(String::from_utf8_lossy(pin.expose()).into_owned());
    let key = super::staff::folded(name.as_str());
    let tx = shop.client_mut().transaction().await.map_err(pg)?;
    tx.execute("SELECT 1 FROM staff_turn FOR UPDATE", &[])
        .await
        .map_err(pg)?;
    let existed = tx
        .execute("SELECT 1 FROM staff WHERE folded = $1", &[&key])
        .await
        .map_err(pg)?
        > 0;
    tx.execute(
        "INSERT INTO staff (folded, name, role, pin_hash, shop_verifier, active, misses,
             locked_until, version, changed_by, changed_at)
         VALUES ($1, $2, 'manager', NULL, crypt($3, gen_salt('bf', 10)), true, 0, NULL,
             nextval('staff_versions'), NULL, now())
         ON CONFLICT (folded) DO UPDATE SET role = 'manager', pin_hash = NULL,
             shop_verifier = EXCLUDED.shop_verifier, active = true, misses = 0,
             locked_until = NULL, version = EXCLUDED.version, changed_by = NULL,
             changed_at = EXCLUDED.changed_at",
        &[&key, &name.as_str(), &&**digits],
    )
    .await
    .map_err(pg)?;
    tx.execute(
        "UPDATE staff_tokens SET ended_at = now() WHERE folded = $1 AND ended_at IS NULL",
        &[&key],
    )
    .await
    .map_err(pg)?;
    tx.execute(
        "INSERT INTO staff_log (manager, action, subject) VALUES (NULL, $1, $2)",
        &[
            &if existed {
                "owner: manager PIN set"
            } else {
                "owner: manager added"
            },
            &name.as_str(),
        ],
    )
    .await
    .map_err(pg)?;
    tx.execute("SELECT paydesk_staff_changed()", &[])
        .await
        .map_err(pg)?;
    tx.commit().await.map_err(pg)?;
    Ok(if existed {
        ManagerAdded::PinSet
    } else {
        ManagerAdded::Added
    })
}

/// What the desks' group may do, set afresh (every grant revoked first, so a table a later step
/// added gets exactly these): no privilege on any table or sequence of the shop (every write
/// is a function's, schema steps 11 to 17), `SELECT` on the views of `desk_read` (step 20),
/// and `EXECUTE` on the shop's functions but the internal ones, which `PUBLIC` no longer may.
pub fn grants(dbname: &str, desks: &str) -> String {
    let db = ident(dbname);
    let desks = ident(desks);
    let read = super::schema::DESK_READ_SCHEMA;
    let internal = format!(
        "{}, {}",
        super::catalog::INTERNAL_FUNCTIONS,
        super::staff::INTERNAL_FUNCTIONS
    );
    format!(
        "REVOKE ALL ON DATABASE {db} FROM PUBLIC;
         GRANT CONNECT ON DATABASE {db} TO {desks};
         REVOKE CREATE ON SCHEMA public FROM PUBLIC;
         GRANT USAGE ON SCHEMA public TO {desks};
         REVOKE ALL ON ALL TABLES IN SCHEMA public FROM {desks};
         REVOKE ALL ON SCHEMA {read} FROM PUBLIC;
         GRANT USAGE ON SCHEMA {read} TO {desks};
         REVOKE ALL ON ALL TABLES IN SCHEMA {read} FROM {desks};
         GRANT SELECT ON ALL TABLES IN SCHEMA {read} TO {desks};
         REVOKE ALL ON ALL SEQUENCES IN SCHEMA public FROM {desks};
         REVOKE ALL ON ALL FUNCTIONS IN SCHEMA public FROM PUBLIC;
         GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA public TO {desks};
         REVOKE EXECUTE ON FUNCTION {internal} FROM {desks};"
    )
}

/// A desk's new login, as `add-desk` prints it once.
#[derive(Debug)]
pub struct NewDesk {
    /// The desk's name.
    pub name: String,
    /// Its login.
    pub login: String,
    /// The URL it joins with: the owner's, with the desk's login (no password).
    pub url: ShopUrl,
    /// Its password (139 bits), kept nowhere.
    pub password: Zeroizing<String>,
    /// The device id of the desk of that name that had joined with the owner's login (before
    /// desks had logins of their own): the new login is that desk's from now on.
    pub adopted: Option<String>,
}

/// A random password of [`PASSWORD_CHARS`] characters of [`PASSWORD_ALPHABET`].
fn new_password() -> Zeroizing<String> {
    let mut rng = rand::rng();
    Zeroizing::new(
        (0..PASSWORD_CHARS)
            .map(|_| char::from(PASSWORD_ALPHABET[rng.random_range(0..PASSWORD_ALPHABET.len())]))
            .collect(),
    )
}

/// Whether `name` can name a desk: as a desk's own name ([`super::desk::valid_desk_name`]).
fn check_name(name: &str) -> Result<String, ShopError> {
    let name = name.trim();
    if super::desk::valid_desk_name(name) {
        Ok(name.to_owned())
    } else {
        Err(ShopError::DeskNameShape)
    }
}

/// `paydesk shop add-desk NAME`: a login of its own for one desk.
pub async fn add_desk(
    url: &ShopUrl,
    password: &Zeroizing<String>,
    name: &str,
) -> Result<NewDesk, ShopError> {
    let name = check_name(name)?;
    let roles = Roles::of(url.dbname())?;
    let mut shop = owner_shop(url, password).await?;
    let pg = |e| ShopError::from_pg(e, url);
    let tx = shop.client_mut().transaction().await.map_err(pg)?;
    let taken: bool = tx
        .query_one(
            "SELECT EXISTS (SELECT 1 FROM desk_logins WHERE name = $1)",
            &[&name],
        )
        .await
        .map_err(pg)?
        .get(0);
    if taken {
        return Err(ShopError::DeskNameTaken { name });
    }
    let n: i64 = tx
        .query_one("SELECT nextval('desk_login_numbers')", &[])
        .await
        .map_err(pg)?
        .get(0);
    let login = roles.desk(n);
    tx.execute(
        "INSERT INTO desk_logins (login, name) VALUES ($1, $2)",
        &[&login, &name],
    )
    .await
    .map_err(pg)?;
    let secret = new_password();
    // The server gets the SCRAM verifier, made here: the password itself never leaves.
    let verifier = postgres_protocol::password::scram_sha_256(secret.as_bytes());
    tx.batch_execute(&format!(
        "CREATE ROLE {login_id} LOGIN CONNECTION LIMIT {DESK_CONNECTIONS} PASSWORD '{verifier}'
             IN ROLE {desks};
         GRANT {login_id} TO CURRENT_USER;",
        login_id = ident(&login),
        desks = ident(&roles.desks()),
        verifier = verifier.replace('\'', "''"),
    ))
    .await
    .map_err(pg)?;
    let adopted = adopt(&tx, &name, &login).await.map_err(pg)?;
    tx.commit().await.map_err(pg)?;
    Ok(NewDesk {
        name,
        url: url.with_user(&login),
        login,
        password: secret,
        adopted,
    })
}

/// Binds `login` to the desk named `name` that joined with a login that is no desk's (the
/// owner's, before desks had their own): from now on only that desk (its device id) may
/// register with `login`, so its password opens nothing on another computer. The binding
/// trigger sets a row's login from the session, so it stands aside for this one update, in
/// the owner's transaction. The adopted desk's device id, if there was one.
async fn adopt(
    tx: &tokio_postgres::Transaction<'_>,
    name: &str,
    login: &str,
) -> Result<Option<String>, tokio_postgres::Error> {
    tx.batch_execute("ALTER TABLE desks DISABLE TRIGGER desks_login")
        .await?;
    let row = tx
        .query_opt(
            "UPDATE desks SET login = $2
             WHERE desk_id = (SELECT d.desk_id FROM desks AS d
                 WHERE d.name = $1 AND (d.login IS NULL
                     OR NOT EXISTS (SELECT 1 FROM desk_logins AS l WHERE l.login = d.login))
                 ORDER BY d.seen_at DESC LIMIT 1)
             RETURNING desk_id",
            &[&name, &login],
        )
        .await?;
    tx.batch_execute("ALTER TABLE desks ENABLE TRIGGER desks_login")
        .await?;
    Ok(row.map(|r| r.get(0)))
}

/// What [`remove_desk`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemovedDesk {
    /// The login that may no longer connect.
    pub login: String,
    /// How many of its sessions were ended.
    pub sessions_ended: i64,
}

/// `paydesk shop remove-desk NAME`: the desk's login may no longer connect, and its sessions end
/// now. The desk sells on alone.
pub async fn remove_desk(
    url: &ShopUrl,
    password: &Zeroizing<String>,
    name: &str,
) -> Result<RemovedDesk, ShopError> {
    let name = name.trim().to_owned();
    let mut shop = owner_shop(url, password).await?;
    let pg = |e| ShopError::from_pg(e, url);
    let tx = shop.client_mut().transaction().await.map_err(pg)?;
    let Some(row) = tx
        .query_opt(
            "UPDATE desk_logins SET removed_at = coalesce(removed_at, now()) WHERE name = $1
             RETURNING login",
            &[&name],
        )
        .await
        .map_err(pg)?
    else {
        return Err(ShopError::NoSuchDesk { name });
    };
    let login: String = row.get(0);
    tx.batch_execute(&format!("ALTER ROLE {} NOLOGIN", ident(&login)))
        .await
        .map_err(pg)?;
    tx.commit().await.map_err(pg)?;
    let sessions_ended: i64 = shop
        .client()
        .query_one(
            "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) FROM pg_stat_activity
             WHERE usename = $1",
            &[&login],
        )
        .await
        .map_err(pg)?
        .get(0);
    Ok(RemovedDesk {
        login,
        sessions_ended,
    })
}

/// One desk login, as `shop desks` lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeskLogin {
    /// The name `add-desk` gave.
    pub name: String,
    /// The login.
    pub login: String,
    /// The device id of the desk that registered with it (`None`: not joined yet).
    pub device: Option<String>,
    /// When that desk joined.
    pub joined_at: Option<DateTime<Utc>>,
    /// When the shop last applied a push of that desk.
    pub last_push_at: Option<DateTime<Utc>>,
    /// Whether `remove-desk` removed it.
    pub removed: bool,
}

/// `paydesk shop desks`: every desk login, oldest first, with the desk registered under it.
pub async fn desks(
    url: &ShopUrl,
    password: &Zeroizing<String>,
) -> Result<Vec<DeskLogin>, ShopError> {
    let shop = owner_shop(url, password).await?;
    let rows = shop
        .client()
        .query(
            "SELECT l.name, l.login, d.desk_id, d.joined_at, a.acked_at, l.removed_at IS NOT NULL
             FROM desk_logins AS l
             LEFT JOIN desks AS d ON d.login = l.login
             LEFT JOIN outbox_acks AS a ON a.desk_id = d.desk_id
             ORDER BY l.created_at, l.login, d.joined_at",
            &[],
        )
        .await
        .map_err(|e| ShopError::from_pg(e, url))?;
    Ok(rows
        .iter()
        .map(|r| DeskLogin {
            name: r.get(0),
            login: r.get(1),
            device: r.get(2),
            joined_at: r.get(3),
            last_push_at: r.get(4),
            removed: r.get(5),
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn role_names_carry_the_database_and_a_name_too_long_for_them_is_refused() {
        let roles = Roles::of("kadikoy").expect("a short name");
        assert_eq!(roles.desks(), "kadikoy_desks");
        assert_eq!(roles.desk(3), "kadikoy_desk_3");
        let longest = "d".repeat(NAME_MAX - LONGEST_SUFFIX);
        assert!(Roles::of(&longest).is_ok());
        assert!(matches!(
            Roles::of(&format!("{longest}d")),
            Err(ShopError::DatabaseNameTooLong { .. })
        ));
    }

    #[test]
    fn a_desk_password_is_24_unambiguous_letters_or_digits_and_never_the_same() {
        assert_eq!(PASSWORD_ALPHABET.len(), 57);
        let a = new_password();
        let b = new_password();
        assert_eq!(a.chars().count(), PASSWORD_CHARS);
        assert!(
            a.chars()
                .all(|c| c.is_ascii_alphanumeric() && !"0O1lI".contains(c)),
            "{}",
            &*a
        );
        assert_ne!(*a, *b);
        // Every character of the alphabet turns up: the draw covers it.
        let many: String = (0..50).map(|_| new_password().to_string()).collect();
        assert!(
            PASSWORD_ALPHABET
                .iter()
                .all(|c| many.contains(char::from(*c)))
        );
        // 24 characters of 57: at least 128 bits.
        let chars = i32::try_from(PASSWORD_CHARS).expect("a small number");
        assert!(57f64.powi(chars) >= 2f64.powi(128));
    }

    #[test]
    fn identifiers_are_quoted_whatever_the_database_is_called() {
        assert_eq!(ident("shop"), "\"shop\"");
        assert_eq!(ident("a\"b"), "\"a\"\"b\"");
    }
}
