// axil_regs: AXI-lite-style register slave with a key-protected register.
// Write address and write data are taken independently (valid/ready), each into a
// one-entry buffer; once both are held and the response channel is free (or being
// emptied this cycle) the write is performed and its response raised, held until bready.
// Reads are taken one at a time (arready while no read response is pending). Word map
// (byte addresses): 00 CTRL rw, 04 STATUS ro, 08 SCRATCH rw, 0C ID ro, 10 KEY wo,
// 14 PROT. Writing the magic C0DE5A5A to KEY with all strobes unlocks PROT for 32
// cycles; one full-word write to PROT is then accepted and relocks it. Any other PROT
// write is refused (SLVERR) and, while unlocked, relocks it; so does a wrong key.
// Unmapped words answer DECERR, misaligned or read-only accesses SLVERR.
// Synchronous active-high reset.
module axil_regs (
    input  wire        clk,
    input  wire        rst,
    input  wire        awvalid,
    input  wire [5:0]  awaddr,
    output wire        awready,
    input  wire        wvalid,
    input  wire [31:0] wdata,
    input  wire [3:0]  wstrb,
    output wire        wready,
    output reg         bvalid,
    output reg  [1:0]  bresp,
    output reg  [2:0]  wr_evt,
    input  wire        bready,
    input  wire        arvalid,
    input  wire [5:0]  araddr,
    output wire        arready,
    output reg         rvalid,
    output reg  [31:0] rdata,
    output reg  [1:0]  rresp,
    output reg  [3:0]  rsel,
    input  wire        rready,
    output reg         unlocked,
    output reg  [4:0]  ukt,
    output reg         relock,
    output reg  [1:0]  relock_why,
    output reg  [7:0]  werr_cnt
);
    localparam [1:0]  OKAY = 2'b00, SLVERR = 2'b10, DECERR = 2'b11;
    localparam [31:0] MAGIC = 32'hC0DE_5A5A, ID = 32'h4158_4C31;
    localparam [2:0]  EV_PLAIN = 3'd0, EV_KEY_OK = 3'd1, EV_KEY_BAD = 3'd2, EV_PROT_OK = 3'd3,
                      EV_PROT_BAD = 3'd4, EV_RO = 3'd5, EV_MISALIGN = 3'd6, EV_UNMAPPED = 3'd7;

    reg        aw_full, w_full;
    reg [5:0]  aw_q;
    reg [31:0] wd_q;
    reg [3:0]  ws_q;
    reg [31:0] ctrl, scratch, prot;
    reg [3:0]  b_stall, r_stall;

    assign awready = !aw_full;
    assign wready  = !w_full;
    assign arready = !rvalid;

    function [31:0] merge;
        input [31:0] old, d;
        input [3:0]  s;
        merge = {s[3] ? d[31:24] : old[31:24], s[2] ? d[23:16] : old[23:16],
                 s[1] ? d[15:8] : old[15:8], s[0] ? d[7:0] : old[7:0]};
    endfunction

    // write decode
    wire [3:0] wa    = aw_q[5:2];
    wire       do_wr = aw_full && w_full && (!bvalid || bready);
    reg  [2:0] evt;
    always @(*) begin
        if (wa > 4'd5)
            evt = EV_UNMAPPED;
        else if (aw_q[1:0] != 2'b00)
            evt = EV_MISALIGN;
        else case (wa)
            4'd0, 4'd2: evt = EV_PLAIN;
            4'd1, 4'd3: evt = EV_RO;
            4'd4:       evt = (wd_q == MAGIC && ws_q == 4'hF) ? EV_KEY_OK : EV_KEY_BAD;
            default:    evt = (unlocked && ws_q == 4'hF) ? EV_PROT_OK : EV_PROT_BAD;
        endcase
    end
    wire [1:0] wresp = evt == EV_UNMAPPED ? DECERR : (evt == EV_PLAIN || evt == EV_KEY_OK || evt == EV_PROT_OK) ? OKAY : SLVERR;

    // read decode
    wire [3:0] ra = araddr[5:2];
    reg [31:0] rd_val;
    always @(*) begin
        case (ra)
            4'd0:    rd_val = ctrl;
            4'd1:    rd_val = {16'd0, werr_cnt, 7'd0, unlocked};
            4'd2:    rd_val = scratch;
            4'd3:    rd_val = ID;
            4'd5:    rd_val = prot;
            default: rd_val = 32'd0;
        endcase
    end

    always @(posedge clk) begin
        if (rst) begin
            aw_full <= 1'b0; w_full <= 1'b0; aw_q <= 6'd0; wd_q <= 32'd0; ws_q <= 4'd0;
            bvalid <= 1'b0; bresp <= OKAY; wr_evt <= EV_PLAIN; rvalid <= 1'b0; rdata <= 32'd0;
            rresp <= OKAY; rsel <= 4'd0; ctrl <= 32'd0; scratch <= 32'd0; prot <= 32'd0;
            unlocked <= 1'b0; ukt <= 5'd0; relock <= 1'b0; relock_why <= 2'd0; werr_cnt <= 8'd0;
            b_stall <= 4'd0; r_stall <= 4'd0;
        end else begin
            relock <= 1'b0;
            if (awvalid && awready) begin aw_full <= 1'b1; aw_q <= awaddr; end
            if (wvalid && wready) begin w_full <= 1'b1; wd_q <= wdata; ws_q <= wstrb; end
            // response channel
            if (bvalid && !bready)
                b_stall <= (b_stall == 4'd15) ? b_stall : b_stall + 4'd1;
            else
                b_stall <= 4'd0;
            if (bvalid && bready)
                bvalid <= 1'b0;
            if (do_wr) begin
                aw_full <= 1'b0;
                w_full  <= 1'b0;
                bvalid  <= 1'b1;
                bresp   <= wresp;
                wr_evt  <= evt;
                if (wresp != OKAY && werr_cnt != 8'hFF)
                    werr_cnt <= werr_cnt + 8'd1;
                if (evt == EV_PLAIN && wa == 4'd0)
                    ctrl <= merge(ctrl, wd_q, ws_q);
                if (evt == EV_PLAIN && wa == 4'd2)
                    scratch <= merge(scratch, wd_q, ws_q);
                if (evt == EV_PROT_OK)
                    prot <= wd_q;
            end
            // lock
            if (do_wr && evt == EV_KEY_OK) begin
                unlocked <= 1'b1;
                ukt      <= 5'd31;
            end else if (unlocked && do_wr && (evt == EV_KEY_BAD || evt == EV_PROT_OK || evt == EV_PROT_BAD)) begin
                unlocked   <= 1'b0;
                relock     <= 1'b1;
                relock_why <= (evt == EV_KEY_BAD) ? 2'd3 : 2'd2;
            end else if (unlocked && ukt == 5'd0) begin
                unlocked   <= 1'b0;
                relock     <= 1'b1;
                relock_why <= 2'd1;
            end else if (unlocked)
                ukt <= ukt - 5'd1;
            // read channel
            if (rvalid && !rready)
                r_stall <= (r_stall == 4'd15) ? r_stall : r_stall + 4'd1;
            else
                r_stall <= 4'd0;
            if (arvalid && arready) begin
                rvalid <= 1'b1;
                rsel   <= ra;
                if (ra > 4'd5) begin
                    rdata <= 32'd0;
                    rresp <= DECERR;
                end else if (araddr[1:0] != 2'b00) begin
                    rdata <= 32'd0;
                    rresp <= SLVERR;
                end else begin
                    rdata <= rd_val;
                    rresp <= OKAY;
                end
            end else if (rvalid && rready)
                rvalid <= 1'b0;
        end
    end
endmodule
