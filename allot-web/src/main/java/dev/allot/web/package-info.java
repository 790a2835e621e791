/**
 * The browser code shared by the HTML report and the service's dashboard (see {@link dev.allot.web.WebAssets}).
 */
package dev.allot.web;
