//! Run-time reflection for plain Rust types: what `java.lang.Class` and `java.lang.reflect.Method`
//! give the article's serializer, built by hand because Rust has none.
//!
//! A reflected type implements [`Reflect`]: it hands out its [`Class`], and the class lists the
//! type's methods by name, each with its parameter types, its return type, who declares it and a
//! function pointer that invokes it on a type-erased receiver (`&dyn Any`). Nothing here knows
//! which methods are getters: finding them is [`super::introspect`]'s job, as it is the article's.

use std::any::{Any, TypeId};
use std::fmt;

/// Why a reflective invocation failed: Java's `IllegalArgumentException` from `Method.invoke`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReflectError {
    /// The receiver is not an instance of the class that declares the method.
    #[error("{method}: receiver is not a {class}")]
    WrongReceiver {
        /// The method invoked.
        method: &'static str,
        /// The class that declares it.
        class: &'static str,
    },
    /// The number or the types of the arguments do not match the method's parameters.
    #[error("{method}: wrong arguments")]
    WrongArguments {
        /// The method invoked.
        method: &'static str,
    },
    /// The method changes its receiver and was invoked through a shared reference, or the other
    /// way round.
    #[error("{method}: wrong receiver kind")]
    WrongReceiverKind {
        /// The method invoked.
        method: &'static str,
    },
}

/// What a method invocation returns: the Rust counterpart of the `Object` that Java's
/// `Method.invoke` returns, whose run-time type the serializer discovers by a type switch.
///
/// Why a closed enum borrowing from the receiver, and not `Box<dyn Any>`: a `Box<dyn Any>` must
/// own a `'static` value, so every `String` getter would clone its string, an allocation Java's
/// `invoke` does not make (it returns a reference to the same `String`; only primitives are
/// boxed, and small `Integer`s come from a cache). A `&dyn Any` borrowed from the field cannot
/// carry a computed result (`hashCode`, `toString`), and downcasting it is one `TypeId`
/// comparison per candidate type, per concrete `Vec<T>` too. The enum keeps what matters of
/// `Object`: the caller does not know the type until it looks, and each variant is one branch of
/// the article's `instanceof` chain. Strings and lists are borrowed, as Java's references are;
/// primitives are carried by value, as a JIT that removes boxing would leave them.
pub enum Value<'a> {
    /// Java's `null`.
    Null,
    /// A `boolean`.
    Bool(bool),
    /// An `int`.
    Int(i32),
    /// A `long`.
    Long(i64),
    /// A string the receiver owns.
    Str(&'a str),
    /// A string computed by the method (`toString`).
    String(String),
    /// A `java.util.List`: a list the receiver owns, read element by element.
    List(&'a dyn List),
    /// Any other object: one the serializer reflects on in turn.
    Object(&'a dyn Reflect),
}

impl fmt::Debug for Value<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Null => f.write_str("Null"),
            Value::Bool(b) => write!(f, "Bool({b})"),
            Value::Int(n) => write!(f, "Int({n})"),
            Value::Long(n) => write!(f, "Long({n})"),
            Value::Str(s) => write!(f, "Str({s:?})"),
            Value::String(s) => write!(f, "String({s:?})"),
            Value::List(l) => write!(f, "List(len {})", l.len()),
            Value::Object(o) => write!(f, "Object({})", o.class().name),
        }
    }
}

/// A list read through dynamic dispatch, element by element: `java.util.List` of `Object`.
pub trait List {
    /// Its number of elements: `List.size()`.
    fn len(&self) -> usize;
    /// Element `index`, which must be below [`List::len`].
    fn get(&self, index: usize) -> Value<'_>;
    /// Whether it has no elements.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl List for Vec<String> {
    fn len(&self) -> usize {
        self.as_slice().len()
    }
    fn get(&self, index: usize) -> Value<'_> {
        Value::Str(&self[index])
    }
}

impl<T: Reflect> List for Vec<T> {
    fn len(&self) -> usize {
        self.as_slice().len()
    }
    fn get(&self, index: usize) -> Value<'_> {
        Value::Object(&self[index])
    }
}

/// A type that describes itself at run time: Java's `Object.getClass()`.
pub trait Reflect: Any {
    /// The class of this value.
    fn class(&self) -> &'static Class;
    /// This value as the receiver of a method invocation (an explicit method rather than trait
    /// upcasting from `dyn Reflect` to `dyn Any`, which is stable from Rust 1.86).
    fn as_any(&self) -> &dyn Any;
}

/// A declared parameter or return type, as `Method.getReturnType()` reports it.
#[derive(Debug, Clone, Copy)]
pub enum Type {
    /// `void`.
    Unit,
    /// `boolean`.
    Bool,
    /// `int`.
    Int,
    /// `long`.
    Long,
    /// `String`.
    Str,
    /// A list of elements of the given type.
    List(&'static Type),
    /// An object of the given class.
    Object(&'static Class),
    /// `Object`: the type is known only at run time.
    Any,
}

/// Where a method is declared: the class itself, or the root every class inherits from, which
/// the article's filter skips (`getDeclaringClass() == Object.class`, to leave out `getClass`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Declarer {
    /// `java.lang.Object`: `getClass`, `hashCode`, `equals`, `toString`, `wait`...
    Object,
    /// The class itself (an override of an `Object` method counts as the class's own).
    Class,
}

/// Invokes a method that reads its receiver: Java's `Method.invoke(target, args...)`.
pub type SharedFn = for<'a> fn(&'a dyn Any, &[Value<'a>]) -> Result<Value<'a>, ReflectError>;

/// Invokes a method that changes its receiver (a setter). It returns nothing that borrows the
/// receiver.
pub type ExclusiveFn = fn(&mut dyn Any, &[Value<'_>]) -> Result<Value<'static>, ReflectError>;

/// How a method is invoked. Java has one `invoke`; Rust must say whether the method needs the
/// receiver exclusively, and the serializer only ever holds a shared reference.
#[derive(Clone, Copy)]
pub enum Call {
    /// Through a shared reference to the receiver.
    Shared(SharedFn),
    /// Through an exclusive reference to the receiver.
    Exclusive(ExclusiveFn),
}

/// A method of a class: `java.lang.reflect.Method`.
#[derive(Clone, Copy)]
pub struct Method {
    /// Its name (`getId`).
    pub name: &'static str,
    /// Its parameters' types.
    pub params: &'static [Type],
    /// Its return type.
    pub returns: Type,
    /// The class that declares it.
    pub declarer: Declarer,
    /// How it is invoked.
    pub call: Call,
}

impl fmt::Debug for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Method")
            .field("name", &self.name)
            .field("params", &self.params)
            .field("returns", &self.returns)
            .field("declarer", &self.declarer)
            .finish_non_exhaustive()
    }
}

impl Method {
    /// A method of the class itself that reads its receiver.
    pub const fn shared(
        name: &'static str,
        params: &'static [Type],
        returns: Type,
        call: SharedFn,
    ) -> Method {
        Method {
            name,
            params,
            returns,
            declarer: Declarer::Class,
            call: Call::Shared(call),
        }
    }

    /// The same method declared by `Object` instead.
    pub const fn inherited(self) -> Method {
        Method {
            declarer: Declarer::Object,
            ..self
        }
    }

    /// Invokes the method on `target` through a shared reference, with `args`.
    #[inline]
    pub fn invoke<'a>(
        &self,
        target: &'a dyn Any,
        args: &[Value<'a>],
    ) -> Result<Value<'a>, ReflectError> {
        match self.call {
            Call::Shared(f) if args.len() == self.params.len() => f(target, args),
            Call::Shared(_) => Err(ReflectError::WrongArguments { method: self.name }),
            Call::Exclusive(_) => Err(ReflectError::WrongReceiverKind { method: self.name }),
        }
    }

    /// Invokes a method that changes `target`.
    pub fn invoke_mut(
        &self,
        target: &mut dyn Any,
        args: &[Value<'_>],
    ) -> Result<Value<'static>, ReflectError> {
        match self.call {
            Call::Exclusive(f) if args.len() == self.params.len() => f(target, args),
            Call::Exclusive(_) => Err(ReflectError::WrongArguments { method: self.name }),
            Call::Shared(_) => Err(ReflectError::WrongReceiverKind { method: self.name }),
        }
    }
}

/// A class: its name, its `TypeId` and its public methods, inherited ones included, in no
/// particular order (Java's `getMethods()` promises none either).
pub struct Class {
    /// The class's name.
    pub name: &'static str,
    /// `TypeId::of::<T>` (not callable in a `static` on stable Rust).
    pub type_id: fn() -> TypeId,
    /// Its public methods.
    pub methods: &'static [Method],
}

impl fmt::Debug for Class {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Class({})", self.name)
    }
}

impl Class {
    /// The class's methods, as Java's `Class.getMethods()` returns them: a fresh array of
    /// copies on every call (JDK 17 copies each `Method` object out of its cache), which is part
    /// of what a non-cached serializer repeats.
    #[inline(never)]
    pub fn get_methods(&self) -> Vec<Method> {
        self.methods.to_vec()
    }

    /// The method named `name` taking `params` parameters: `Class.getMethod`.
    pub fn method(&self, name: &str, params: usize) -> Option<&'static Method> {
        self.methods
            .iter()
            .find(|m| m.name == name && m.params.len() == params)
    }
}

/// The receiver of `method` as a `T`, or the error `Method.invoke` gives for a wrong target.
#[inline]
pub fn receiver<'a, T: Any>(
    target: &'a dyn Any,
    method: &'static str,
) -> Result<&'a T, ReflectError> {
    target
        .downcast_ref::<T>()
        .ok_or_else(|| wrong_receiver::<T>(method))
}

/// [`receiver`] for methods that change their receiver.
pub fn receiver_mut<'a, T: Any>(
    target: &'a mut dyn Any,
    method: &'static str,
) -> Result<&'a mut T, ReflectError> {
    target
        .downcast_mut::<T>()
        .ok_or_else(|| wrong_receiver::<T>(method))
}

#[cold]
fn wrong_receiver<T>(method: &'static str) -> ReflectError {
    let class = std::any::type_name::<T>();
    ReflectError::WrongReceiver {
        method,
        class: class.rsplit("::").next().unwrap_or(class),
    }
}

/// `Object.getClass()`, which every class inherits: returns the class name (a `Class` object is
/// not a value the serializer could write, and the filter skips the method anyway).
pub fn get_class<'a, T: Reflect>(
    target: &'a dyn Any,
    _args: &[Value<'a>],
) -> Result<Value<'a>, ReflectError> {
    Ok(Value::Str(receiver::<T>(target, "getClass")?.class().name))
}
