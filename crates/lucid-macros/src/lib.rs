//! `#[tool]` and `#[tools]`: plain Rust functions become Lucid tools.
//!
//! Use them through `lucid` (`use lucid::prelude::*;`), which documents them with
//! examples. The macros derive a tool's name from the function, its description from the
//! doc comment, and its argument schema from the parameter types (via `schemars`), with
//! parameter doc comments as property descriptions.

use proc_macro::TokenStream;
use proc_macro2::{Span, TokenStream as TokenStream2};
use quote::{format_ident, quote};
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Attribute, Expr, FnArg, ImplItem, ItemFn, ItemImpl, Lit, Meta, Pat, ReturnType, Signature, Token, Type};

/// Turns a free function (async or not) into a tool value of the same name.
/// See `lucid::tool` for the full documentation.
#[proc_macro_attribute]
pub fn tool(attr: TokenStream, item: TokenStream) -> TokenStream {
    let expanded = parse_options(attr.into()).and_then(|opts| {
        let func: ItemFn = syn::parse(item)?;
        expand_fn(opts, func)
    });
    expanded.unwrap_or_else(syn::Error::into_compile_error).into()
}

/// Turns every `#[tool]` method of an `impl` block into a tool sharing `&self`.
/// See `lucid::tool` for the full documentation.
#[proc_macro_attribute]
pub fn tools(attr: TokenStream, item: TokenStream) -> TokenStream {
    let expanded = (|| {
        if !attr.is_empty() {
            return Err(syn::Error::new(Span::call_site(), "#[tools] takes no arguments"));
        }
        let block: ItemImpl = syn::parse(item)?;
        expand_impl(block)
    })();
    expanded.unwrap_or_else(syn::Error::into_compile_error).into()
}

#[derive(Default)]
struct Options {
    name: Option<(String, Span)>,
    description: Option<String>,
    /// `idempotent`: the generated `Tool::idempotent` answers true.
    idempotent: bool,
}

fn parse_options(attr: TokenStream2) -> syn::Result<Options> {
    let mut opts = Options::default();
    let metas = Punctuated::<Meta, Token![,]>::parse_terminated.parse2(attr)?;
    for meta in metas {
        if let Meta::Path(p) = &meta
            && p.is_ident("idempotent")
        {
            opts.idempotent = true;
            continue;
        }
        let Meta::NameValue(nv) = &meta else {
            return Err(syn::Error::new(
                meta.span(),
                "expected `name = \"...\"`, `description = \"...\"` or `idempotent`",
            ));
        };
        let value = match &nv.value {
            Expr::Lit(l) => match &l.lit {
                Lit::Str(s) => s.clone(),
                other => return Err(syn::Error::new(other.span(), "expected a string literal")),
            },
            other => return Err(syn::Error::new(other.span(), "expected a string literal")),
        };
        if nv.path.is_ident("name") {
            opts.name = Some((value.value(), value.span()));
        } else if nv.path.is_ident("description") {
            opts.description = Some(value.value());
        } else {
            return Err(syn::Error::new(
                nv.path.span(),
                "unknown option; expected `name`, `description` or `idempotent`",
            ));
        }
    }
    Ok(opts)
}

fn check_name(name: &str, span: Span) -> syn::Result<()> {
    let ok =
        !name.is_empty() && name.len() <= 64 && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if ok {
        Ok(())
    } else {
        Err(syn::Error::new(
            span,
            format!(
                "invalid tool name `{name}`: use 1 to 64 ASCII letters, digits, `_` or `-` (what every provider accepts)"
            ),
        ))
    }
}

fn doc_text(attrs: &[Attribute]) -> String {
    let lines: Vec<String> = attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .filter_map(|a| match &a.meta {
            Meta::NameValue(nv) => match &nv.value {
                Expr::Lit(l) => match &l.lit {
                    Lit::Str(s) => Some(s.value().trim().to_string()),
                    _ => None,
                },
                _ => None,
            },
            _ => None,
        })
        .collect();
    lines.join("\n").trim().to_string()
}

/// A tool without a description is a tool the model cannot choose well: refused here,
/// naming the function.
fn check_description(description: &str, name: &str, ident: &syn::Ident) -> syn::Result<()> {
    if description.trim().is_empty() {
        return Err(syn::Error::new(
            ident.span(),
            format!(
                "the tool `{name}` has no description: the model reads it to choose the tool; \
                 add a doc comment (`/// What it does.`) or `#[tool(description = \"...\")]`"
            ),
        ));
    }
    Ok(())
}

fn is_doc(a: &Attribute) -> bool {
    a.path().is_ident("doc")
}

fn last_segment(ty: &Type) -> Option<String> {
    match ty {
        Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
        _ => None,
    }
}

/// Whether a `Result<T, E>` return type's `E` is named `ToolError`.
fn error_is_tool_error(output: &ReturnType) -> bool {
    let ReturnType::Type(_, ty) = output else { return false };
    let Type::Path(p) = ty.as_ref() else { return false };
    let Some(syn::PathArguments::AngleBracketed(args)) = p.path.segments.last().map(|s| &s.arguments) else {
        return false;
    };
    matches!(args.args.iter().nth(1), Some(syn::GenericArgument::Type(e)) if last_segment(e).as_deref() == Some("ToolError"))
}

struct Param {
    ident: syn::Ident,
    ty: Type,
    docs: Vec<Attribute>,
    is_context: bool,
}

/// Checks a tool signature and returns its parameters (receiver excluded).
fn params(sig: &mut Signature, method: bool) -> syn::Result<Vec<Param>> {
    if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
        return Err(syn::Error::new(
            sig.generics.span(),
            "a tool cannot be generic: its argument schema must be known",
        ));
    }
    if let Some(v) = &sig.variadic {
        return Err(syn::Error::new(v.span(), "a tool cannot be variadic"));
    }
    let mut out = Vec::new();
    let mut saw_receiver = false;
    for arg in sig.inputs.iter_mut() {
        match arg {
            FnArg::Receiver(r) => {
                if !method {
                    return Err(syn::Error::new(r.span(), "a free #[tool] function cannot take self"));
                }
                if r.reference.is_none() || r.mutability.is_some() {
                    return Err(syn::Error::new(r.span(), "a tool method must take `&self` (tools run concurrently)"));
                }
                saw_receiver = true;
            }
            FnArg::Typed(pt) => {
                let Pat::Ident(pi) = &*pt.pat else {
                    return Err(syn::Error::new(pt.pat.span(), "tool parameters must be plain names, not patterns"));
                };
                match &*pt.ty {
                    Type::Reference(r) => {
                        return Err(syn::Error::new(
                            r.span(),
                            "tool parameters must be owned types (e.g. `String` instead of `&str`): they are deserialized from the model's JSON",
                        ));
                    }
                    Type::ImplTrait(t) => {
                        return Err(syn::Error::new(
                            t.span(),
                            "tool parameters cannot be `impl Trait`: their schema must be known",
                        ));
                    }
                    _ => {}
                }
                let docs: Vec<Attribute> = pt.attrs.iter().filter(|a| is_doc(a)).cloned().collect();
                pt.attrs.retain(|a| !is_doc(a));
                let is_context = last_segment(&pt.ty).as_deref() == Some("ToolContext");
                out.push(Param { ident: pi.ident.clone(), ty: (*pt.ty).clone(), docs, is_context });
            }
        }
    }
    if method && !saw_receiver {
        return Err(syn::Error::new(sig.ident.span(), "a #[tool] method inside #[tools] must take `&self`"));
    }
    Ok(out)
}

/// The pieces shared by both macros: the argument struct, and the body of `invoke`.
fn tool_impl(
    tool_ty: TokenStream2,
    opts_idempotent: bool,
    name: &str,
    description: &str,
    params: &[Param],
    sig: &Signature,
    call_target: TokenStream2,
) -> TokenStream2 {
    let args_ident = format_ident!("__LucidArgs");
    let fields = params.iter().filter(|p| !p.is_context).map(|p| {
        let ident = &p.ident;
        let ty = &p.ty;
        let docs = &p.docs;
        let default = if last_segment(ty).as_deref() == Some("Option") { quote!(#[serde(default)]) } else { quote!() };
        quote! { #(#docs)* #default #ident: #ty }
    });
    let bind = params.iter().filter(|p| !p.is_context).map(|p| &p.ident);
    let call_args = params.iter().map(|p| {
        let ident = &p.ident;
        if p.is_context { quote!(__ctx.clone()) } else { quote!(#ident) }
    });
    let await_ = if sig.asyncness.is_some() { quote!(.await) } else { quote!() };
    let returns_result = match &sig.output {
        ReturnType::Type(_, ty) => last_segment(ty).as_deref() == Some("Result"),
        ReturnType::Default => false,
    };
    // A `ToolError` is kept as it is (its questions with it); any other error by its message.
    let error =
        if error_is_tool_error(&sig.output) { quote!(e) } else { quote!(::lucid::tool::ToolError::new(e.to_string())) };
    let convert = if returns_result {
        quote! {
            match __out {
                ::core::result::Result::Ok(v) => ::lucid::tool::output_text(&v),
                ::core::result::Result::Err(e) => ::core::result::Result::Err(#error),
            }
        }
    } else {
        quote!(::lucid::tool::output_text(&__out))
    };
    let idempotent = if opts_idempotent {
        quote! { fn idempotent(&self) -> bool { true } }
    } else {
        quote!()
    };
    quote! {
        #[derive(::lucid::__private::serde::Deserialize, ::lucid::schemars::JsonSchema)]
        #[serde(crate = "::lucid::__private::serde", deny_unknown_fields)]
        #[schemars(crate = "::lucid::schemars")]
        #[allow(non_camel_case_types, dead_code)]
        struct #args_ident { #(#fields,)* }

        impl ::lucid::tool::Tool for #tool_ty {
            #idempotent

            fn spec(&self) -> &::lucid::tool::ToolSpec {
                static SPEC: ::std::sync::OnceLock<::lucid::tool::ToolSpec> = ::std::sync::OnceLock::new();
                SPEC.get_or_init(|| ::lucid::tool::ToolSpec::for_args::<#args_ident>(#name, #description))
            }

            fn invoke<'a>(
                &'a self,
                __args: ::lucid::__private::serde_json::Value,
                __ctx: ::lucid::tool::ToolContext,
            ) -> ::lucid::__private::BoxFuture<'a, ::core::result::Result<::std::string::String, ::lucid::tool::ToolError>> {
                ::std::boxed::Box::pin(async move {
                    let #args_ident { #(#bind,)* } = ::lucid::tool::parse_args::<#args_ident>(__args)?;
                    let _ = &__ctx;
                    let __out = #call_target(#(#call_args),*)#await_;
                    #convert
                })
            }
        }
    }
}

fn expand_fn(opts: Options, mut func: ItemFn) -> syn::Result<TokenStream2> {
    let fn_ident = func.sig.ident.clone();
    let (name, name_span) = opts.name.clone().unwrap_or_else(|| (fn_ident.to_string(), fn_ident.span()));
    check_name(&name, name_span)?;
    let params = params(&mut func.sig, false)?;
    let description = opts.description.clone().unwrap_or_else(|| doc_text(&func.attrs));
    check_description(&description, &name, &fn_ident)?;
    let vis = &func.vis;
    let docs: Vec<&Attribute> = func.attrs.iter().filter(|a| is_doc(a)).collect();
    let mut inner = func.clone();
    inner.sig.ident = format_ident!("call");
    inner.vis = syn::parse_quote!(pub);
    let imp =
        tool_impl(quote!(#fn_ident), opts.idempotent, &name, &description, &params, &func.sig, quote!(#fn_ident::call));
    Ok(quote! {
        #(#docs)*
        ///
        /// This is a Lucid tool (`#[tool]`): pass it to `Agent::builder(..).tool(..)`.
        /// The original function is available as `call`.
        #[allow(non_camel_case_types)]
        #[derive(Debug, Clone, Copy, Default)]
        #vis struct #fn_ident;

        impl #fn_ident {
            #inner
        }

        const _: () = { #imp };
    })
}

fn expand_impl(mut block: ItemImpl) -> syn::Result<TokenStream2> {
    if !block.generics.params.is_empty() {
        return Err(syn::Error::new(block.generics.span(), "#[tools] does not support generic impl blocks"));
    }
    if let Some((_, path, _)) = &block.trait_ {
        return Err(syn::Error::new(path.span(), "#[tools] goes on an inherent impl block, not a trait impl"));
    }
    let self_ty = block.self_ty.clone();
    let type_name = last_segment(&self_ty).unwrap_or_else(|| "Tools".into());
    let mut generated = Vec::new();
    let mut tool_idents = Vec::new();
    for item in block.items.iter_mut() {
        let ImplItem::Fn(method) = item else { continue };
        let Some(pos) = method.attrs.iter().position(|a| a.path().is_ident("tool")) else {
            continue;
        };
        let attr = method.attrs.remove(pos);
        let opts = match &attr.meta {
            Meta::Path(_) => Options::default(),
            Meta::List(l) => parse_options(l.tokens.clone())?,
            Meta::NameValue(nv) => {
                return Err(syn::Error::new(nv.span(), "use #[tool] or #[tool(name = \"...\")]"));
            }
        };
        let method_ident = method.sig.ident.clone();
        let (name, span) = opts.name.clone().unwrap_or_else(|| (method_ident.to_string(), method_ident.span()));
        check_name(&name, span)?;
        let params = params(&mut method.sig, true)?;
        let description = opts.description.clone().unwrap_or_else(|| doc_text(&method.attrs));
        check_description(&description, &name, &method_ident)?;
        let tool_ident = format_ident!("__LucidTool_{}_{}", type_name, method_ident);
        let imp = tool_impl(
            quote!(#tool_ident),
            opts.idempotent,
            &name,
            &description,
            &params,
            &method.sig,
            quote!(self.0.#method_ident),
        );
        generated.push(quote! {
            #[allow(non_camel_case_types)]
            struct #tool_ident(::std::sync::Arc<#self_ty>);
            const _: () = { #imp };
        });
        tool_idents.push(tool_ident);
    }
    if tool_idents.is_empty() {
        return Err(syn::Error::new(block.self_ty.span(), "#[tools] found no method marked #[tool]"));
    }
    Ok(quote! {
        #block

        #(#generated)*

        impl ::lucid::tool::ToolSet for #self_ty {
            fn tools(self: ::std::sync::Arc<Self>) -> ::std::vec::Vec<::std::sync::Arc<dyn ::lucid::tool::Tool>> {
                ::std::vec![#(::std::sync::Arc::new(#tool_idents(self.clone())) as ::std::sync::Arc<dyn ::lucid::tool::Tool>),*]
            }
        }
    })
}
