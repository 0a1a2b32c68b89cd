// ps2_scan_rx: PS/2-style keyboard frame receiver and scan-code decoder.
// kclk and kdat pass through two registers each. The clock is deglitched: the
// filtered clock kf flips only after the synchronised clock has differed from it on
// four consecutive edges. On each filtered falling edge one frame bit is taken from
// the synchronised data: a start bit (0), eight data bits LSB first, an odd parity
// bit and a stop bit (1). A 1 where the start bit belongs is a start glitch; a stop
// bit of 0 is a framing error; a bad parity is a parity error; 96 cycles without a
// filtered falling edge inside a frame are a timeout. A good byte E0 sets the
// extended prefix, F0 the break prefix; any other good byte is a key event that
// takes both prefixes and clears them. Errors (parity, framing, timeout) clear the
// prefixes and are counted by err_cnt, saturating at 7. Synchronous active-high reset.
module ps2_scan_rx (
    input  wire       clk,
    input  wire       rst,
    input  wire       kclk,
    input  wire       kdat,
    output reg        rx_valid,
    output reg  [7:0] rx_byte,
    output reg        par_err,
    output reg        frm_err,
    output reg        start_err,
    output reg        timeout,
    output reg        key_valid,
    output reg  [7:0] key_code,
    output reg        key_ext,
    output reg        key_brk,
    output reg  [2:0] err_cnt,
    output reg  [3:0] bitn,
    output wire       busy
);
    localparam [6:0] TMO_MAX = 7'd95;

    reg  [1:0] kclk_s, kdat_s;
    reg        kf;
    reg  [1:0] fcnt;
    reg        recv;
    reg  [7:0] shreg;
    reg        par;
    reg  [6:0] tmo;
    reg        ext_pend, brk_pend;

    wire       differ = (kclk_s[1] != kf);
    wire       fall   = differ && (fcnt == 2'd3) && kf;
    wire       bitv   = kdat_s[1];
    wire       par_ok = ^{shreg, par};
    wire       err    = recv && ((fall && bitn == 4'd10 && (!bitv || !par_ok)) || (!fall && tmo == TMO_MAX));
    wire       good   = recv && fall && bitn == 4'd10 && bitv && par_ok;

    always @(posedge clk) begin
        if (rst) begin
            kclk_s    <= 2'b11;
            kdat_s    <= 2'b11;
            kf        <= 1'b1;
            fcnt      <= 2'd0;
            recv      <= 1'b0;
            bitn      <= 4'd0;
            shreg     <= 8'd0;
            par       <= 1'b0;
            tmo       <= 7'd0;
            ext_pend  <= 1'b0;
            brk_pend  <= 1'b0;
            rx_valid  <= 1'b0;
            rx_byte   <= 8'd0;
            par_err   <= 1'b0;
            frm_err   <= 1'b0;
            start_err <= 1'b0;
            timeout   <= 1'b0;
            key_valid <= 1'b0;
            key_code  <= 8'd0;
            key_ext   <= 1'b0;
            key_brk   <= 1'b0;
            err_cnt   <= 3'd0;
        end else begin
            kclk_s    <= {kclk_s[0], kclk};
            kdat_s    <= {kdat_s[0], kdat};
            rx_valid  <= 1'b0;
            par_err   <= 1'b0;
            frm_err   <= 1'b0;
            start_err <= 1'b0;
            timeout   <= 1'b0;
            key_valid <= 1'b0;
            // clock deglitch filter
            if (!differ)
                fcnt <= 2'd0;
            else if (fcnt == 2'd3) begin
                kf   <= ~kf;
                fcnt <= 2'd0;
            end else
                fcnt <= fcnt + 2'd1;
            // frame
            if (!recv) begin
                tmo <= 7'd0;
                if (fall) begin
                    if (!bitv) begin
                        recv <= 1'b1;
                        bitn <= 4'd1;
                    end else
                        start_err <= 1'b1;
                end
            end else if (fall) begin
                tmo <= 7'd0;
                if (bitn <= 4'd8) begin
                    shreg <= {bitv, shreg[7:1]};
                    bitn  <= bitn + 4'd1;
                end else if (bitn == 4'd9) begin
                    par  <= bitv;
                    bitn <= 4'd10;
                end else begin
                    recv <= 1'b0;
                    bitn <= 4'd0;
                    if (!bitv)
                        frm_err <= 1'b1;
                    else if (!par_ok)
                        par_err <= 1'b1;
                    else begin
                        rx_valid <= 1'b1;
                        rx_byte  <= shreg;
                    end
                end
            end else if (tmo == TMO_MAX) begin
                timeout <= 1'b1;
                recv    <= 1'b0;
                bitn    <= 4'd0;
                tmo     <= 7'd0;
            end else
                tmo <= tmo + 7'd1;
            // scan-code decoder
            if (err) begin
                ext_pend <= 1'b0;
                brk_pend <= 1'b0;
                if (err_cnt != 3'd7)
                    err_cnt <= err_cnt + 3'd1;
            end else if (good) begin
                if (shreg == 8'hE0)
                    ext_pend <= 1'b1;
                else if (shreg == 8'hF0)
                    brk_pend <= 1'b1;
                else begin
                    key_valid <= 1'b1;
                    key_code  <= shreg;
                    key_ext   <= ext_pend;
                    key_brk   <= brk_pend;
                    ext_pend  <= 1'b0;
                    brk_pend  <= 1'b0;
                end
            end
        end
    end

    assign busy = recv;
endmodule
